// Multi-head attention (heads are contiguous d/h slices, scores scaled by 1/sqrt(d/h)).
//
// Keys and values are produced by one stacked operator into rows of [k | v] (2 d floats), the
// layout of both the encoder's memory and the decoder's key/value cache, so the attention loop
// reads them in place.
#pragma once

#include <string>

#include "layers/linear.h"

namespace tformer {

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  MultiHeadAttention(Backend& backend, const ModelFile& file, const std::string& prefix, int d_model,
                     int heads);

  const Linear& query() const { return q_; }
  const Linear& key_value() const { return kv_; }
  const Linear& output() const { return o_; }
  int heads() const { return heads_; }
  int d_model() const { return d_; }

  // Attention of one query row q[d] over n rows of [k | v] starting at kv with row stride
  // `stride` floats; writes the concatenated heads to out[d]. When `weights` is given, adds the
  // per-head softmax weights / heads to weights[n] (head average).
  void attend(const float* q, const float* kv, size_t n, size_t stride, float* out,
              float* weights = nullptr) const;

 private:
  Linear q_, kv_, o_;
  int d_ = 0, heads_ = 0, head_dim_ = 0;
  float scale_ = 1.f;
};

}  // namespace tformer
