#include "transformer/decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/ops.h"
#include "model/model_file.h"
#include "tformer/error.h"
#include "util/gather_rows.h"
#include "util/profile.h"

namespace tformer {

Decoder::Decoder(Kernels& kernels, const ModelFile& file, const ModelConfig& config, const Embedding& embedding,
                 const PositionalEncoding& positions, const OutputProjection& output)
    : kernels_(kernels), config_(config), embedding_(embedding), positions_(positions), output_(output) {
  const int d = config.d_model;
  const float eps = config.layer_norm_eps;
  const auto self_inputs = config.self_attention_shares_inputs() ? MultiHeadAttention::Inputs::kShared
                                                                 : MultiHeadAttention::Inputs::kSeparate;
  for (int i = 0; i < config.decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    Layer layer;
    if (config.decoder_layer_type == DecoderLayerType::kSsru) {
      layer.self = Ssru(kernels, file, p + ".ssru", d);
      layer.self_norm = LayerNorm(file, p + ".ssru_norm", d, eps);
    } else {
      layer.self = MultiHeadAttention(kernels, file, p + ".self_attn", d, config.heads, self_inputs);
      layer.self_norm = LayerNorm(file, p + ".self_attn_norm", d, eps);
    }
    layer.cross_attn =
        MultiHeadAttention(kernels, file, p + ".cross_attn", d, config.heads, MultiHeadAttention::Inputs::kSeparate);
    layer.cross_attn_norm = LayerNorm(file, p + ".cross_attn_norm", d, eps);
    layer.ffn = FeedForward(kernels, file, p + ".ffn", d, config.ffn_dim, config.activation);
    layer.ffn_norm = LayerNorm(file, p + ".ffn_norm", d, eps);
    layers_.push_back(std::move(layer));
  }
  if (config.norm == Norm::kPre) final_norm_ = LayerNorm(file, "decoder.final_norm", d, eps);
  // A bad alignment_head is refused here, at load, not at the first translation asking for alignment.
  const nlohmann::json& header = file.header();
  const auto meta = header.find("metadata");
  alignment_head_ = alignment_head_from_metadata(meta == header.end() ? nlohmann::json() : *meta, config);
}

DecoderState Decoder::start(const EncoderOutput& memory, size_t max_steps,
                            const std::vector<std::vector<int>>& vocabularies) const {
  const size_t d = size_t(config_.d_model);
  DecoderState state;
  if (!vocabularies.empty()) {
    if (vocabularies.size() != memory.batch)
      throw Error("decoder: " + std::to_string(vocabularies.size()) + " vocabularies for a batch of " +
                  std::to_string(memory.batch));
    state.shortlist.emplace(output_, vocabularies);
  }
  state.rows = memory.batch;
  state.capacity = max_steps;
  state.source_lengths = memory.lengths;
  state.memory_stride = memory.max_length;
  for (size_t b = 0; b < memory.batch; ++b) state.row_sentence.push_back(int(b));
  state.layers.resize(layers_.size());
  profile::Scope timed(profile::Phase::kCrossAttention);  // the memory's keys and values
  for (size_t l = 0; l < layers_.size(); ++l) {
    DecoderState::Layer& cache = state.layers[l];
    // Keys and values of the encoder memory, computed once per sentence and layer, for its real
    // positions only (attention never reads past a sentence's length).
    cache.memory.ensure(memory.batch * memory.max_length * 2 * d);
    for (size_t b = 0; b < memory.batch; ++b)
      layers_[l].cross_attn.key_value()(memory.row(b, 0), size_t(memory.lengths[b]),
                                        &cache.memory[b * memory.max_length * 2 * d]);
    if (config_.decoder_layer_type == DecoderLayerType::kSsru)
      cache.state.assign(state.rows * d, 0.f);
    else
      cache.cache.ensure(state.rows * max_steps * 2 * d);
  }
  return state;
}

void Decoder::self_block(const Layer& layer, DecoderState::Layer& cache, DecoderState& state, const float* query_in,
                         const float* kv_in, float* result) const {
  const size_t d = size_t(config_.d_model), rows = state.rows, t = size_t(state.step);
  DecoderState::Scratch& s = state.scratch;
  if (const Ssru* ssru = std::get_if<Ssru>(&layer.self)) {
    ssru->step(query_in, rows, cache.state.data(), result, s.ssru);
    return;
  }
  const MultiHeadAttention& attn = std::get<MultiHeadAttention>(layer.self);
  s.heads.ensure(rows * d);
  float* heads = s.heads.data();
  const MultiHeadAttention::Projections p = attn.project(query_in, kv_in, rows, s.q, s.kv);
  const size_t row_stride = state.capacity * 2 * d;
  for (size_t r = 0; r < rows; ++r)
    std::memcpy(&cache.cache[r * row_stride + t * 2 * d], p.kv + r * p.kv_stride, 2 * d * sizeof(float));
  kernels_.parallel_for(rows, [&](size_t r) {
    attn.attend(p.q + r * p.q_stride, &cache.cache[r * row_stride], t + 1, 2 * d, &heads[r * d]);
  });
  attn.output()(heads, rows, result);
}

void Decoder::cross_block(const Layer& layer, const DecoderState::Layer& cache, DecoderState& state,
                          const float* query_in, float* result, float* alignment, int alignment_head) const {
  const size_t d = size_t(config_.d_model), rows = state.rows;
  DecoderState::Scratch& s = state.scratch;
  s.q.ensure(rows * d);
  s.heads.ensure(rows * d);
  float* q = s.q.data();
  float* heads = s.heads.data();
  layer.cross_attn.query()(query_in, rows, q);
  kernels_.parallel_for(rows, [&](size_t r) {
    const size_t b = size_t(state.row_sentence[r]);
    const size_t n = size_t(state.source_lengths[b]);
    float* weights = alignment ? alignment + r * state.memory_stride : nullptr;
    layer.cross_attn.attend(&q[r * d], &cache.memory[b * state.memory_stride * 2 * d], n, 2 * d, &heads[r * d],
                            weights, alignment_head);
  });
  layer.cross_attn.output()(heads, rows, result);
}

void Decoder::step(DecoderState& state, const std::vector<int>& tokens, std::vector<float>& logits,
                   std::vector<float>* alignment) const {
  std::vector<float>& last = state.scratch.last;
  step_hidden(state, tokens, last, alignment);
  logits.resize(state.rows * logits_width(state));
  project(state, last.data(), logits.data());
}

void Decoder::project(const float* hidden, size_t rows, float* logits) const { output_(hidden, rows, logits); }

void Decoder::project(DecoderState& state, const float* hidden, float* logits) const {
  if (state.shortlist)
    (*state.shortlist)(hidden, state.rows, state.row_sentence, logits);
  else
    project(hidden, state.rows, logits);
}

size_t Decoder::logits_width(const DecoderState& state) const {
  return state.shortlist ? state.shortlist->width() : size_t(config_.vocab_size);
}

void Decoder::step_hidden(DecoderState& state, const std::vector<int>& tokens, std::vector<float>& hidden,
                          std::vector<float>* alignment) const {
  const size_t d = size_t(config_.d_model), rows = state.rows;
  const int t = state.step;
  DecoderState::Scratch& s = state.scratch;
  s.x.resize(rows * d);
  const bool zero_start = t == 0 && config_.decoder_start == DecoderStart::kZero;
  for (size_t r = 0; r < rows; ++r) {
    const int id = t == 0 ? (zero_start ? -1 : config_.bos_id) : tokens[r];
    embedding_.lookup(id, &s.x[r * d]);
    positions_.add(t, &s.x[r * d]);
  }
  if (alignment) alignment->assign(rows * state.memory_stride, 0.f);

  float* x = s.x.data();
  const Norm placement = config_.norm;
  const bool raw_kv = config_.prenorm_raw_self_kv;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    DecoderState::Layer& cache = state.layers[l];
    const size_t align_layer = alignment_head_.named() ? size_t(alignment_head_.layer) : layers_.size() - 1;
    float* align = (alignment && l == align_layer) ? alignment->data() : nullptr;
    residual_sublayer(kernels_, placement, layer.self_norm, x, rows, d, s.residual,
                      [&](const float* in, const float* raw, float* result) {
                        profile::Scope timed(profile::Phase::kSelfAttention);
                        self_block(layer, cache, state, in, raw_kv ? raw : in, result);
                      });
    residual_sublayer(kernels_, placement, layer.cross_attn_norm, x, rows, d, s.residual,
                      [&](const float* in, const float*, float* result) {
                        profile::Scope timed(profile::Phase::kCrossAttention);
                        cross_block(layer, cache, state, in, result, align, alignment_head_.head);
                      });
    residual_sublayer(kernels_, placement, layer.ffn_norm, x, rows, d, s.residual,
                      [&](const float* in, const float*, float* result) {
                        profile::Scope timed(profile::Phase::kFeedForward);
                        layer.ffn(in, rows, result, s.ffn_hidden);
                      });
  }
  if (placement == Norm::kPre) final_norm_(x, rows, x);
  hidden.assign(x, x + rows * d);
  ++state.step;
}

void Decoder::select_rows(DecoderState& state, const std::vector<int>& parents) const {
  const size_t d = size_t(config_.d_model), n = parents.size();
  bool identity = n == state.rows;
  for (size_t i = 0; identity && i < n; ++i) identity = parents[i] == int(i);
  if (identity) return;
  profile::Scope timed(profile::Phase::kCacheReorder);
  std::vector<int> sentences(n);
  for (size_t i = 0; i < n; ++i) sentences[i] = state.row_sentence[size_t(parents[i])];
  state.row_sentence = std::move(sentences);
  const size_t used = size_t(state.step) * 2 * d, row_stride = state.capacity * 2 * d;
  for (DecoderState::Layer& cache : state.layers) {
    if (!cache.state.empty()) {
      std::vector<float> next(n * d);
      for (size_t i = 0; i < n; ++i) std::memcpy(&next[i * d], &cache.state[size_t(parents[i]) * d], d * 4);
      cache.state = std::move(next);
    }
    if (!cache.cache.empty()) {
      // Only the `used` positions are copied; the rest of each row is never read.
      if (n <= state.rows) {  // the buffer already holds n rows
        gather_rows_in_place(cache.cache.data(), state.rows, row_stride, used, parents, cache.spare);
      } else {
        RawBuffer<float>& next = cache.spare;
        next.ensure(n * row_stride);
        for (size_t i = 0; i < n; ++i)
          std::memcpy(&next[i * row_stride], &cache.cache[size_t(parents[i]) * row_stride], used * 4);
        cache.cache.swap(next);
      }
    }
  }
  state.rows = n;
}

}  // namespace tformer
