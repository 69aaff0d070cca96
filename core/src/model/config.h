// The architecture of a model, as stored in the `config` object of a .tfm header. Keys and
// meanings are those of models/tformer/config.py (the PyTorch reference); see docs/FORMAT.md.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tformer {

enum class Norm { kPost, kPre };
enum class Activation { kRelu, kSwish };
enum class PositionalKind { kInterleaved, kMarian };
enum class DecoderStart { kBos, kZero };
enum class TiedEmbeddings { kAll, kTarget, kNone };
enum class DecoderLayerType { kTransformer, kSsru };

struct ModelConfig {
  int vocab_size = 0;
  int d_model = 0;
  int heads = 0;
  int ffn_dim = 0;
  int encoder_layers = 0;
  int decoder_layers = 0;
  Norm norm = Norm::kPost;
  bool prenorm_raw_self_kv = false;
  // Whether a self-attention's queries, keys and values read the same rows (not so in pre-norm
  // models whose keys and values read the raw input).
  bool self_attention_shares_inputs() const { return !(norm == Norm::kPre && prenorm_raw_self_kv); }
  Activation activation = Activation::kRelu;
  int max_positions = 512;
  PositionalKind positional_encoding = PositionalKind::kInterleaved;
  DecoderStart decoder_start = DecoderStart::kBos;
  bool source_bos = true;
  bool source_eos = true;
  int pad_id = 0, unk_id = 1, bos_id = 2, eos_id = 3;
  TiedEmbeddings tied_embeddings = TiedEmbeddings::kNone;
  bool output_bias = true;
  float layer_norm_eps = 1e-5f;
  bool suppress_unk = false;
  DecoderLayerType decoder_layer_type = DecoderLayerType::kTransformer;

  int head_dim() const { return d_model / heads; }

  // Parses and validates; throws tformer::Error naming the offending key.
  static ModelConfig from_json(const nlohmann::json& j);
  // Every key, defaults included (from_json(to_json()) gives the same config).
  nlohmann::json to_json() const;
};

// The cross-attention head whose weights are the alignment the engine returns: the .tfm metadata
// key "alignment_head": {"layer": L, "head": H} (0-based), written for models trained with guided
// alignment on that head (models/tformer/train.py, or Marian's, by the importer). Without it
// (layer -1), the mean over the heads of the last decoder layer.
struct AlignmentHead {
  int layer = -1;
  int head = -1;
  bool named() const { return layer >= 0; }
};

// Reads "alignment_head" from a header's `metadata` object (null or absent: none named); throws
// tformer::Error when it is not {"layer": L, "head": H} with 0 <= L < decoder_layers and
// 0 <= H < heads.
AlignmentHead alignment_head_from_metadata(const nlohmann::json& metadata, const ModelConfig& config);

}  // namespace tformer
