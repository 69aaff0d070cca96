// Multi-head attention (heads are contiguous d/h slices, scores scaled by 1/sqrt(d/h)).
//
// Keys and values are produced by one stacked operator into rows of [k | v] (2 d floats), the
// layout of both the encoder's memory and the decoder's key/value cache, so the attention loop
// reads them in place. A self-attention whose queries, keys and values read the same rows stacks
// all three: one product per layer and step gives rows of [q | k | v] (3 d floats).
#pragma once

#include <string>

#include "layers/linear.h"
#include "util/raw_buffer.h"

namespace tformer {

class MultiHeadAttention {
 public:
  // kSeparate: queries and keys/values read different rows (cross-attention; a pre-norm
  // self-attention whose keys read the raw input): query() and key_value(). kShared: one input
  // for all three (self-attention): query_key_value().
  enum class Inputs { kSeparate, kShared };

  MultiHeadAttention() = default;
  MultiHeadAttention(Kernels& kernels, const ModelFile& file, const std::string& prefix, int d_model,
                     int heads, Inputs inputs);

  bool shared_inputs() const { return inputs_ == Inputs::kShared; }
  const Linear& query() const { return q_; }              // kSeparate: rows of q (d floats)
  const Linear& key_value() const { return kv_; }         // kSeparate: rows of [k | v]
  const Linear& query_key_value() const { return qkv_; }  // kShared: rows of [q | k | v]
  const Linear& output() const { return o_; }

  // Where project() put each row's query and [k | v]: row r's at q + r * q_stride and
  // kv + r * kv_stride.
  struct Projections {
    const float* q;
    size_t q_stride;
    const float* kv;
    size_t kv_stride;
  };
  // The queries, keys and values of `rows` inputs, in scratch buffers the caller keeps: kShared,
  // one product into rows of [q | k | v] in kv_scratch (kv_in must be query_in); kSeparate, q
  // into q_scratch and [k | v] rows into kv_scratch.
  Projections project(const float* query_in, const float* kv_in, size_t rows, RawBuffer<float>& q_scratch,
                      RawBuffer<float>& kv_scratch) const;
  int heads() const { return heads_; }
  int d_model() const { return d_; }

  // Attention of one query row q[d] over n rows of [k | v] starting at kv with row stride
  // `stride` floats; writes the concatenated heads to out[d]. When `weights` is given, adds the
  // per-head softmax weights / heads to weights[n] (head average), or with weights_head >= 0 adds
  // that one head's weights (a head trained with guided alignment).
  void attend(const float* q, const float* kv, size_t n, size_t stride, float* out,
              float* weights = nullptr, int weights_head = -1) const;

 private:
  Inputs inputs_ = Inputs::kSeparate;
  Linear q_, kv_, qkv_, o_;
  int d_ = 0, heads_ = 0, head_dim_ = 0;
  float scale_ = 1.f;
};

}  // namespace tformer
