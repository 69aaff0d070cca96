// The incremental decoder: one target position per call for all live hypotheses ("rows") of a
// batch, with a per-layer key/value cache of past positions and the encoder memory projected to
// keys/values once per sentence. Rows can be reordered or dropped between steps (beam search,
// finished sentences leaving the batch).
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "layers/attention.h"
#include "layers/embedding.h"
#include "layers/feed_forward.h"
#include "layers/layer_norm.h"
#include "layers/linear.h"
#include "layers/output_projection.h"
#include "layers/positional_encoding.h"
#include "layers/residual.h"
#include "layers/ssru.h"
#include "model/config.h"
#include "transformer/encoder.h"
#include "util/raw_buffer.h"

namespace tformer {

struct DecoderState {
  size_t rows = 0;      // live hypotheses
  size_t capacity = 0;  // positions reserved per row in the self-attention cache
  int step = 0;         // positions decoded so far
  std::vector<int> row_sentence;  // row -> sentence of the encoder batch
  std::vector<int> source_lengths;
  size_t memory_stride = 0;  // rows of [k | v] per sentence in `memory`
  struct Layer {
    // Written before read, so none of these three is initialized: a position past a sentence's
    // length or past the current step is never read.
    RawBuffer<float> memory;  // [sentences, max source length, 2 d]: cross-attention keys/values
    RawBuffer<float> cache;   // [rows, capacity, 2 d]: self-attention keys/values (transformer layers)
    RawBuffer<float> spare;   // select_rows gathers into this and swaps: no allocation per step
    std::vector<float> state; // [rows, d]: recurrent state (SSRU layers)
  };
  std::vector<Layer> layers;
  // The batch's output projection when each sentence scores only its own target ids (a lexical
  // shortlist); none: every row scores the whole vocabulary.
  std::optional<ShortlistProjection> shortlist;
  // The step's working rows, overwritten before read: kept here, not in the (const, shared)
  // Decoder, so that sessions decoding at once on one model do not share them.
  struct Scratch {
    std::vector<float> x;            // [rows, d]: the rows through the layers
    std::vector<float> last;         // [rows, d]: step()'s hidden states before the projection
    std::vector<float> ssru;         // the SSRU's two gate products
    RawBuffer<float> q, kv, heads;   // queries, this step's [k | v] (or [q | k | v]) rows, attention heads
    RawBuffer<float> ffn_hidden;     // [rows, ffn_dim]
    ResidualBuffers residual;        // LN(x) and a sublayer's output
  };
  Scratch scratch;
};

class Decoder {
 public:
  Decoder(Kernels& kernels, const ModelFile& file, const ModelConfig& config, const Embedding& embedding,
          const PositionalEncoding& positions, const OutputProjection& output);

  // Starts decoding: one row per sentence, room for `max_steps` positions. `vocabularies`: empty,
  // or per sentence the target ids its rows score, ascending (its lexical shortlist).
  DecoderState start(const EncoderOutput& memory, size_t max_steps,
                     const std::vector<std::vector<int>>& vocabularies = {}) const;
  // Decodes position state.step for every row: step_hidden, then project. tokens[r] is the
  // previous target token of row r (ignored at step 0). Writes logits [rows, logits_width]; when
  // `alignment` is given, the cross-attention weights of the model's alignment head (metadata
  // "alignment_head": one head of one layer), or without one the last layer's head average,
  // [rows, max source length] (zero past each source).
  void step(DecoderState& state, const std::vector<int>& tokens, std::vector<float>& logits,
            std::vector<float>* alignment = nullptr) const;
  // The layers only: writes the last hidden states [rows, d_model] (after the final layer norm),
  // the input of the output projection, so that the projection can run elsewhere (WebGPU).
  void step_hidden(DecoderState& state, const std::vector<int>& tokens, std::vector<float>& hidden,
                   std::vector<float>* alignment = nullptr) const;
  // The output projection: logits [rows, vocab] of hidden states [rows, d_model].
  void project(const float* hidden, size_t rows, float* logits) const;
  // The batch's projection of the state's rows: logits [rows, logits_width(state)]; with
  // vocabularies, row r holds the logits of its sentence's ids, in their order.
  void project(DecoderState& state, const float* hidden, float* logits) const;
  size_t logits_width(const DecoderState& state) const;
  // The kernels the layers run on (their thread pool also serves the search's per-row work).
  Kernels& kernels() const { return kernels_; }
  // Keeps rows parents[0..n): new row i continues old row parents[i].
  void select_rows(DecoderState& state, const std::vector<int>& parents) const;

  int vocab_size() const { return config_.vocab_size; }

 private:
  struct Layer {
    std::variant<MultiHeadAttention, Ssru> self;  // a transformer layer's self-attention or an SSRU
    LayerNorm self_norm;
    MultiHeadAttention cross_attn;
    LayerNorm cross_attn_norm;
    FeedForward ffn;
    LayerNorm ffn_norm;
  };
  void self_block(const Layer& layer, DecoderState::Layer& cache, DecoderState& state, const float* query_in,
                  const float* kv_in, float* result) const;
  void cross_block(const Layer& layer, const DecoderState::Layer& cache, DecoderState& state,
                   const float* query_in, float* result, float* alignment, int alignment_head) const;

  Kernels& kernels_;
  const ModelConfig& config_;
  const Embedding& embedding_;
  const PositionalEncoding& positions_;
  const OutputProjection& output_;
  std::vector<Layer> layers_;
  LayerNorm final_norm_;
  AlignmentHead alignment_head_;  // validated at load; none named: the last layer's head average
};

}  // namespace tformer
