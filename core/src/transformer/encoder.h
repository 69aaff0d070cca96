// The encoder stack: embedding * sqrt(d) + positions, then self-attention and feed-forward
// sublayers with residual connections and layer normalisation (post- or pre-norm).
#pragma once

#include <vector>

#include "layers/attention.h"
#include "layers/embedding.h"
#include "layers/feed_forward.h"
#include "layers/layer_norm.h"
#include "layers/positional_encoding.h"
#include "layers/residual.h"
#include "model/config.h"
#include "tformer/model_plan.h"
#include "util/raw_buffer.h"

namespace tformer {

// A padded batch of encoded sentences: row-major [batch, max_length, d_model], zero past each
// sentence's length (the encoder itself computes real tokens only).
struct EncoderOutput {
  size_t batch = 0, max_length = 0, d_model = 0;
  std::vector<int> lengths;
  std::vector<float> states;
  const float* row(size_t b, size_t t) const { return &states[(b * max_length + t) * d_model]; }
};

class Encoder {
 public:
  Encoder(Kernels& kernels, const ModelFile& file, const ModelConfig& config, const Embedding& embedding,
          const PositionalEncoding& positions);
  // sources: token ids per sentence (BOS/EOS already added), each at most max_positions long.
  EncoderOutput forward(const std::vector<std::vector<int>>& sources) const;
  // The layers as built, for an external backend: its tensors, norm placement and flags.
  std::vector<EncoderLayerPlan> layer_plans() const;
  NormPlan final_norm_plan() const { return final_norm_.plan(); }

 private:
  struct Layer {
    MultiHeadAttention self_attn;
    LayerNorm self_attn_norm;
    FeedForward ffn;
    LayerNorm ffn_norm;
  };
  // Buffers every layer overwrites before reading: allocated once per batch, not per layer, and
  // never zero-filled (rows * 4 d floats per layer had been zeroed only to be overwritten).
  struct Scratch {
    RawBuffer<float> q, kv, heads;  // kv holds [q | k | v] rows when the attention's inputs are shared
    RawBuffer<float> ffn_hidden;  // rows * ffn_dim
    ResidualBuffers residual;     // LN(x) and a sublayer's output
  };
  void self_attention(const Layer& layer, const float* query_in, const float* kv_in,
                      const std::vector<size_t>& starts, Scratch& scratch, float* result) const;

  Kernels& kernels_;
  const ModelConfig& config_;
  const Embedding& embedding_;
  const PositionalEncoding& positions_;
  std::vector<Layer> layers_;
  LayerNorm final_norm_;
};

}  // namespace tformer
