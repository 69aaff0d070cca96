#include "transformer/encoder.h"

#include <algorithm>
#include <cmath>

#include "kernels/ops.h"

namespace tformer {

Encoder::Encoder(Backend& backend, const ModelFile& file, const ModelConfig& config, const Embedding& embedding,
                 const PositionalEncoding& positions)
    : backend_(backend), config_(config), embedding_(embedding), positions_(positions) {
  const int d = config.d_model;
  for (int i = 0; i < config.encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    layers_.push_back(Layer{MultiHeadAttention(backend, file, p + ".self_attn", d, config.heads),
                            LayerNorm(file, p + ".self_attn_norm", d, config.layer_norm_eps),
                            FeedForward(backend, file, p + ".ffn", d, config.ffn_dim, config.activation),
                            LayerNorm(file, p + ".ffn_norm", d, config.layer_norm_eps)});
  }
  if (config.norm == Norm::kPre) final_norm_ = LayerNorm(file, "encoder.final_norm", d, config.layer_norm_eps);
}

void Encoder::self_attention(const Layer& layer, const float* query_in, const float* kv_in, EncoderOutput& out,
                             float* result) const {
  const size_t rows = out.batch * out.max_length, d = out.d_model;
  std::vector<float> q(rows * d), kv(rows * 2 * d), heads(rows * d, 0.f);
  layer.self_attn.query()(query_in, rows, q.data());
  layer.self_attn.key_value()(kv_in, rows, kv.data());
  // One task per (sentence, position); padded positions are skipped and keys stop at the
  // sentence's length, which is what a key padding mask does.
  backend_.parallel_for(rows, [&](size_t r) {
    const size_t b = r / out.max_length, t = r % out.max_length;
    const size_t n = size_t(out.lengths[b]);
    if (t >= n) return;
    std::vector<float> scores(n);
    layer.self_attn.attend(&q[r * d], &kv[b * out.max_length * 2 * d], n, 2 * d, &heads[r * d], scores.data());
  });
  layer.self_attn.output()(heads.data(), rows, result);
}

EncoderOutput Encoder::forward(const std::vector<std::vector<int>>& sources) const {
  EncoderOutput out;
  const size_t d = size_t(config_.d_model);
  out.batch = sources.size();
  out.d_model = d;
  for (const auto& s : sources) {
    out.lengths.push_back(int(s.size()));
    out.max_length = std::max(out.max_length, s.size());
  }
  const size_t rows = out.batch * out.max_length;
  out.states.assign(rows * d, 0.f);
  const float scale = static_cast<float>(std::sqrt(double(d)));
  for (size_t b = 0; b < out.batch; ++b) {
    for (size_t t = 0; t < sources[b].size(); ++t) {
      float* x = &out.states[(b * out.max_length + t) * d];
      embedding_.lookup(sources[b][t], scale, x);
      positions_.add(int(t), x);
    }
  }

  float* x = out.states.data();
  std::vector<float> normed(rows * d), sub(rows * d), hidden;
  const bool pre = config_.norm == Norm::kPre;
  for (const Layer& layer : layers_) {
    if (pre) {
      layer.self_attn_norm(x, rows, normed.data());
      self_attention(layer, normed.data(), config_.prenorm_raw_self_kv ? x : normed.data(), out, sub.data());
      ops::add_inplace(x, sub.data(), rows * d);
      layer.ffn_norm(x, rows, normed.data());
      layer.ffn(normed.data(), rows, sub.data(), hidden);
      ops::add_inplace(x, sub.data(), rows * d);
    } else {
      self_attention(layer, x, x, out, sub.data());
      ops::add_inplace(x, sub.data(), rows * d);
      layer.self_attn_norm(x, rows, x);
      layer.ffn(x, rows, sub.data(), hidden);
      ops::add_inplace(x, sub.data(), rows * d);
      layer.ffn_norm(x, rows, x);
    }
  }
  if (pre) final_norm_(x, rows, x);
  return out;
}

}  // namespace tformer
