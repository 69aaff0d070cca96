#include "transformer/encoder.h"

#include <algorithm>

#include "util/profile.h"

namespace tformer {

Encoder::Encoder(Kernels& kernels, const ModelFile& file, const ModelConfig& config, const Embedding& embedding,
                 const PositionalEncoding& positions)
    : kernels_(kernels), config_(config), embedding_(embedding), positions_(positions) {
  const int d = config.d_model;
  const auto inputs = config.self_attention_shares_inputs() ? MultiHeadAttention::Inputs::kShared
                                                            : MultiHeadAttention::Inputs::kSeparate;
  for (int i = 0; i < config.encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    layers_.push_back(Layer{MultiHeadAttention(kernels, file, p + ".self_attn", d, config.heads, inputs),
                            LayerNorm(file, p + ".self_attn_norm", d, config.layer_norm_eps),
                            FeedForward(kernels, file, p + ".ffn", d, config.ffn_dim, config.activation),
                            LayerNorm(file, p + ".ffn_norm", d, config.layer_norm_eps)});
  }
  if (config.norm == Norm::kPre) final_norm_ = LayerNorm(file, "encoder.final_norm", d, config.layer_norm_eps);
}

// Rows are the sentences' real tokens back to back (`starts[b]` is sentence b's first row): every
// sublayer but attention works row by row, so no padded position is ever computed. Padding to
// the longest sentence of a length-sorted batch had doubled the encoder's matrix products (100
// Multi30k sentences: 1800 tokens padded to 4500 rows).
void Encoder::self_attention(const Layer& layer, const float* query_in, const float* kv_in,
                             const std::vector<size_t>& starts, Scratch& scratch, float* result) const {
  const size_t rows = starts.back(), d = size_t(config_.d_model);
  const MultiHeadAttention& attn = layer.self_attn;
  scratch.heads.ensure(rows * d);
  float* heads = scratch.heads.data();
  const MultiHeadAttention::Projections p = attn.project(query_in, kv_in, rows, scratch.q, scratch.kv);
  // One task per token, attending over its own sentence's keys (a key padding mask, implicitly).
  kernels_.parallel_for(rows, [&](size_t r) {
    const size_t b = size_t(std::upper_bound(starts.begin(), starts.end(), r) - starts.begin()) - 1;
    const size_t n = starts[b + 1] - starts[b];
    attn.attend(p.q + r * p.q_stride, p.kv + starts[b] * p.kv_stride, n, p.kv_stride, &heads[r * d]);
  });
  layer.self_attn.output()(heads, rows, result);
}

std::vector<EncoderLayerPlan> Encoder::layer_plans() const {
  std::vector<EncoderLayerPlan> plans;
  for (const Layer& layer : layers_) {
    EncoderLayerPlan p;
    p.norm = config_.norm == Norm::kPre ? "pre" : "post";
    p.raw_self_kv = !layer.self_attn.shared_inputs();
    if (p.raw_self_kv) {
      p.q = layer.self_attn.query().plan();
      p.kv = layer.self_attn.key_value().plan();
    } else {
      p.qkv = layer.self_attn.query_key_value().plan();
    }
    p.o = layer.self_attn.output().plan();
    p.self_attention_norm = layer.self_attn_norm.plan();
    p.ffn_w1 = layer.ffn.w1().plan();
    p.ffn_w2 = layer.ffn.w2().plan();
    p.activation = layer.ffn.activation() == Activation::kSwish ? "swish" : "relu";
    p.ffn_norm = layer.ffn_norm.plan();
    plans.push_back(std::move(p));
  }
  return plans;
}

EncoderOutput Encoder::forward(const std::vector<std::vector<int>>& sources) const {
  profile::Scope timed(profile::Phase::kEncoder);
  EncoderOutput out;
  const size_t d = size_t(config_.d_model);
  out.batch = sources.size();
  out.d_model = d;
  std::vector<size_t> starts = {0};
  for (const auto& s : sources) {
    out.lengths.push_back(int(s.size()));
    out.max_length = std::max(out.max_length, s.size());
    starts.push_back(starts.back() + s.size());
  }
  const size_t rows = starts.back();
  std::vector<float> states(rows * d);
  for (size_t b = 0; b < out.batch; ++b) {
    for (size_t t = 0; t < sources[b].size(); ++t) {
      float* x = &states[(starts[b] + t) * d];
      embedding_.lookup(sources[b][t], x);
      positions_.add(int(t), x);
    }
  }

  float* x = states.data();
  Scratch scratch;
  const Norm placement = config_.norm;
  const bool raw_kv = config_.prenorm_raw_self_kv;
  for (const Layer& layer : layers_) {
    residual_sublayer(kernels_, placement, layer.self_attn_norm, x, rows, d, scratch.residual,
                      [&](const float* in, const float* raw, float* result) {
                        self_attention(layer, in, raw_kv ? raw : in, starts, scratch, result);
                      });
    residual_sublayer(kernels_, placement, layer.ffn_norm, x, rows, d, scratch.residual,
                      [&](const float* in, const float*, float* result) {
                        layer.ffn(in, rows, result, scratch.ffn_hidden);
                      });
  }
  if (placement == Norm::kPre) final_norm_(x, rows, x);
  // The padded layout the decoder and the session API read; padded positions are zero.
  out.states.assign(out.batch * out.max_length * d, 0.f);
  for (size_t b = 0; b < out.batch; ++b)
    std::copy(&states[starts[b] * d], &states[starts[b + 1] * d], &out.states[b * out.max_length * d]);
  return out;
}

}  // namespace tformer
