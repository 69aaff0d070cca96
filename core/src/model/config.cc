#include "model/config.h"

#include <nlohmann/json.hpp>
#include <set>

#include "tformer/error.h"

namespace tformer {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& msg) { throw Error("invalid model config: " + msg); }

int get_int(const json& j, const char* key, long long lo, long long hi, bool required, int def) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) fail(std::string("missing key '") + key + "'");
    return def;
  }
  if (!it->is_number_integer()) fail(std::string("'") + key + "' must be an integer");
  const long long v = it->get<long long>();
  if (v < lo || v > hi)
    fail(std::string("'") + key + "' = " + std::to_string(v) + " is outside [" + std::to_string(lo) +
         ", " + std::to_string(hi) + "]");
  return static_cast<int>(v);
}

bool get_bool(const json& j, const char* key, bool def) {
  auto it = j.find(key);
  if (it == j.end()) return def;
  if (!it->is_boolean()) fail(std::string("'") + key + "' must be true or false");
  return it->get<bool>();
}

template <typename E>
E get_enum(const json& j, const char* key, std::initializer_list<std::pair<const char*, E>> values,
           E def) {
  auto it = j.find(key);
  if (it == j.end()) return def;
  std::string allowed;
  if (it->is_string()) {
    const std::string s = it->get<std::string>();
    for (auto& [name, value] : values)
      if (s == name) return value;
  }
  for (auto& [name, value] : values) allowed += std::string(allowed.empty() ? "" : ", ") + name;
  fail(std::string("'") + key + "' must be one of: " + allowed);
}

}  // namespace

ModelConfig ModelConfig::from_json(const json& j) {
  if (!j.is_object()) fail("not a JSON object");
  static const std::set<std::string> known = {
      "vocab_size", "d_model", "heads", "ffn_dim", "encoder_layers", "decoder_layers", "norm",
      "prenorm_raw_self_kv", "activation", "max_positions", "positional_encoding", "decoder_start",
      "source_bos", "source_eos", "pad_id", "unk_id", "bos_id", "eos_id", "tied_embeddings",
      "output_bias", "layer_norm_eps", "suppress_unk", "decoder_layer_type"};
  for (auto& [key, _] : j.items())
    if (!known.count(key)) fail("unknown key '" + key + "' (written by a newer exporter?)");

  ModelConfig c;
  c.vocab_size = get_int(j, "vocab_size", 1, 1 << 22, true, 0);
  c.d_model = get_int(j, "d_model", 2, 1 << 14, true, 0);
  c.heads = get_int(j, "heads", 1, 1024, true, 0);
  c.ffn_dim = get_int(j, "ffn_dim", 1, 1 << 18, true, 0);
  c.encoder_layers = get_int(j, "encoder_layers", 1, 256, true, 0);
  c.decoder_layers = get_int(j, "decoder_layers", 1, 256, true, 0);
  c.max_positions = get_int(j, "max_positions", 2, 1 << 16, false, 512);
  c.pad_id = get_int(j, "pad_id", -1, c.vocab_size - 1, false, 0);
  c.unk_id = get_int(j, "unk_id", -1, c.vocab_size - 1, false, 1);
  c.bos_id = get_int(j, "bos_id", -1, c.vocab_size - 1, false, 2);
  c.eos_id = get_int(j, "eos_id", 0, c.vocab_size - 1, false, 3);
  if (c.d_model % c.heads != 0)
    fail("d_model " + std::to_string(c.d_model) + " is not a multiple of heads " + std::to_string(c.heads));
  if (c.d_model % 2 != 0) fail("d_model must be even (sinusoidal positions)");

  c.norm = get_enum<Norm>(j, "norm", {{"post", Norm::kPost}, {"pre", Norm::kPre}}, Norm::kPost);
  c.prenorm_raw_self_kv = get_bool(j, "prenorm_raw_self_kv", false);
  c.activation = get_enum<Activation>(
      j, "activation", {{"relu", Activation::kRelu}, {"swish", Activation::kSwish}}, Activation::kRelu);
  c.positional_encoding = get_enum<PositionalKind>(
      j, "positional_encoding",
      {{"interleaved", PositionalKind::kInterleaved}, {"marian", PositionalKind::kMarian}},
      PositionalKind::kInterleaved);
  c.decoder_start = get_enum<DecoderStart>(
      j, "decoder_start", {{"bos", DecoderStart::kBos}, {"zero", DecoderStart::kZero}}, DecoderStart::kBos);
  c.source_bos = get_bool(j, "source_bos", true);
  c.source_eos = get_bool(j, "source_eos", true);
  c.tied_embeddings = get_enum<TiedEmbeddings>(
      j, "tied_embeddings",
      {{"all", TiedEmbeddings::kAll}, {"target", TiedEmbeddings::kTarget}, {"none", TiedEmbeddings::kNone}},
      TiedEmbeddings::kNone);
  c.output_bias = get_bool(j, "output_bias", true);
  c.suppress_unk = get_bool(j, "suppress_unk", false);
  c.decoder_layer_type = get_enum<DecoderLayerType>(
      j, "decoder_layer_type",
      {{"transformer", DecoderLayerType::kTransformer}, {"ssru", DecoderLayerType::kSsru}},
      DecoderLayerType::kTransformer);
  if (auto it = j.find("layer_norm_eps"); it != j.end()) {
    if (!it->is_number() || it->get<double>() <= 0 || it->get<double>() > 1)
      fail("'layer_norm_eps' must be a number in (0, 1]");
    c.layer_norm_eps = it->get<float>();
  }
  if ((c.decoder_start == DecoderStart::kBos || c.source_bos) && c.bos_id < 0)
    fail("the config uses a BOS token but bos_id is -1");
  // A source sentence is cut into pieces of max_positions minus its BOS/EOS tokens: at least one
  // token must fit, or the cutting would never end.
  const int specials = int(c.source_bos) + int(c.source_eos);
  if (c.max_positions - specials < 1)
    fail("'max_positions' = " + std::to_string(c.max_positions) + " leaves no room for a source token next to " +
         (specials == 2 ? "BOS and EOS" : c.source_bos ? "BOS" : "EOS") + " (it must be at least " + std::to_string(specials + 1) + ")");
  return c;
}

AlignmentHead alignment_head_from_metadata(const json& metadata, const ModelConfig& config) {
  AlignmentHead a;
  if (!metadata.is_object()) return a;
  const auto it = metadata.find("alignment_head");
  if (it == metadata.end() || it->is_null()) return a;
  // Like ModelConfig's, the messages say what was expected and do not echo the value found: a
  // crafted header's value may be megabytes long.
  const auto bad = [](const std::string& msg) -> Error {
    return Error("invalid model metadata: 'alignment_head' " + msg);
  };
  if (!it->is_object() || it->size() != 2 || !it->contains("layer") || !it->contains("head"))
    throw bad("must be {\"layer\": L, \"head\": H}");
  const json& layer = (*it)["layer"];
  const json& head = (*it)["head"];
  if (!layer.is_number_integer() || !head.is_number_integer())
    throw bad("layer and head must be integers");
  const long long L = layer.get<long long>(), H = head.get<long long>();
  if (L < 0 || L >= config.decoder_layers)
    throw bad("layer " + std::to_string(L) + " is not a decoder layer (the model has " +
              std::to_string(config.decoder_layers) + ", numbered from 0)");
  if (H < 0 || H >= config.heads)
    throw bad("head " + std::to_string(H) + " is not a head (the model has " + std::to_string(config.heads) +
              " per layer, numbered from 0)");
  a.layer = int(L);
  a.head = int(H);
  return a;
}

json ModelConfig::to_json() const {
  const ModelConfig& c = *this;
  return json{{"vocab_size", c.vocab_size},
              {"d_model", c.d_model},
              {"heads", c.heads},
              {"ffn_dim", c.ffn_dim},
              {"encoder_layers", c.encoder_layers},
              {"decoder_layers", c.decoder_layers},
              {"norm", c.norm == Norm::kPre ? "pre" : "post"},
              {"prenorm_raw_self_kv", c.prenorm_raw_self_kv},
              {"activation", c.activation == Activation::kSwish ? "swish" : "relu"},
              {"max_positions", c.max_positions},
              {"positional_encoding", c.positional_encoding == PositionalKind::kMarian ? "marian" : "interleaved"},
              {"decoder_start", c.decoder_start == DecoderStart::kZero ? "zero" : "bos"},
              {"source_bos", c.source_bos},
              {"source_eos", c.source_eos},
              {"pad_id", c.pad_id},
              {"unk_id", c.unk_id},
              {"bos_id", c.bos_id},
              {"eos_id", c.eos_id},
              {"tied_embeddings", c.tied_embeddings == TiedEmbeddings::kAll      ? "all"
                                  : c.tied_embeddings == TiedEmbeddings::kTarget ? "target"
                                                                                 : "none"},
              {"output_bias", c.output_bias},
              {"layer_norm_eps", double(c.layer_norm_eps)},
              {"suppress_unk", c.suppress_unk},
              {"decoder_layer_type", c.decoder_layer_type == DecoderLayerType::kSsru ? "ssru" : "transformer"}};
}

}  // namespace tformer
