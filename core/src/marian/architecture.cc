#include "marian/architecture.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "tformer/error.h"

namespace tformer::marian {
namespace {

// Marian's defaults (marian-dev src/common/config_parser.cpp) for the options that shape a
// transformer: the same table as marian.py's DEFAULTS.
const Json& defaults() {
  static const Json d = Json::parse(R"({
    "type": "amun", "dim-emb": 512, "enc-depth": 1, "dec-depth": 1, "transformer-heads": 8,
    "transformer-dim-ffn": 2048, "transformer-decoder-dim-ffn": 0, "transformer-ffn-depth": 2,
    "transformer-decoder-ffn-depth": 0, "transformer-ffn-activation": "swish",
    "transformer-preprocess": "", "transformer-postprocess": "dan", "transformer-postprocess-emb": "d",
    "transformer-postprocess-top": "", "transformer-decoder-autoreg": "self-attention", "dec-cell": "gru",
    "tied-embeddings": false, "tied-embeddings-src": false, "tied-embeddings-all": false,
    "transformer-train-position-embeddings": false, "transformer-no-projection": false,
    "transformer-pool": false, "transformer-tied-layers": [], "output-omit-bias": false,
    "layer-normalization": false, "right-left": false, "lemma-dim-emb": 0, "ulr": false,
    "factors-dim-emb": 0, "input-types": [], "output-approx-knn": []
  })");
  return d;
}

// Options that do not change what a trained transformer computes at inference (marian.py's IGNORED).
const std::set<std::string>& ignored() {
  static const std::set<std::string> s = {
      "version", "dim-rnn", "enc-type", "enc-cell", "enc-cell-depth", "dec-cell-base-depth",
      "dec-cell-high-depth", "skip", "best-deep", "factors-combine", "lemma-dependency",
      "transformer-dim-aan", "transformer-aan-depth", "transformer-aan-activation", "transformer-aan-nogate",
      "transformer-guided-alignment-layer", "transformer-depth-scaling", "transformer-dropout",
      "transformer-dropout-attention", "transformer-dropout-ffn", "dropout-rnn", "dropout-src", "dropout-trg",
      "guided-alignment", "guided-alignment-cost", "guided-alignment-weight", "label-smoothing",
      "ulr-query-vectors", "ulr-keys-vectors", "ulr-trainable-transformation", "ulr-dim-emb", "ulr-dropout",
      "ulr-softmax-temperature", "bert-mask-symbol", "bert-sep-symbol", "bert-class-symbol",
      "bert-masking-fraction", "bert-train-type-embeddings", "bert-type-vocab-size", "comet-final-sigmoid",
      "comet-mix", "comet-mix-norm", "comet-dropout", "comet-mixup", "comet-mixup-reg", "comet-pooler-ffn",
      "comet-prepend-zero", "precision", "cost-type", "multi-loss-type", "unlikelihood-loss",
      "embedding-fix-src", "embedding-fix-trg", "embedding-normalization", "embedding-vectors",
      "max-length", "max-length-crop", "max-length-factor", "beam-size", "normalize", "word-penalty",
      "mini-batch", "maxi-batch", "maxi-batch-sort", "relative-paths", "models", "vocabs", "workspace",
      "cpu-threads", "gemm-precision", "quiet", "quiet-translation", "alignment", "skip-cost",
      "shortlist", "dim-vocabs", "transformer-decoder-dim-ffn", "transformer-decoder-ffn-depth"};
  return s;
}

std::string strip_dropout(const Json& v) {
  std::string s = truthy(v) ? text_of(v) : "";
  s.erase(std::remove(s.begin(), s.end(), 'd'), s.end());
  return s;
}

bool equals_int(const Json& v, long long n) {
  if (v.is_boolean()) return (v.get<bool>() ? 1 : 0) == n;  // Python: True == 1
  return v.is_number() && v.get<double>() == double(n);
}

}  // namespace

bool is_architecture_option(const std::string& key) { return defaults().contains(key); }
bool is_ignored_option(const std::string& key) { return ignored().count(key) != 0; }

bool truthy(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return !v.empty();
}

std::string text_of(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

std::string repr(const Json& v) {
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  return text_of(v);
}

long long int_of(const Json& v, const std::string& what, const std::string& option) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::fabs(d) < 9e18) return static_cast<long long>(d);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    size_t used = 0;
    try {
      const long long n = std::stoll(s, &used, 10);
      if (used == s.size()) return n;
    } catch (const std::exception&) {
    }
  }
  throw Error(what + ": option " + option + " is " + repr(v) + ", not an integer");
}

Architecture architecture_from_options(const Json& opts, const std::string& what, std::vector<std::string>& warnings) {
  Json o = defaults();
  std::vector<std::string> unknown;
  for (const auto& [k, v] : opts.items()) {
    if (!v.is_null()) o[k] = v;
    if (!is_architecture_option(k) && !is_ignored_option(k)) unknown.push_back(k);
  }
  std::sort(unknown.begin(), unknown.end());
  if (!unknown.empty()) {
    std::string list;
    for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
    warnings.push_back(what + ": Marian options this converter does not know, ignored: " + list);
  }
  auto refuse = [&](const std::string& msg) { return Error(what + ": unsupported Marian model: " + msg); };

  if (o["type"] != "transformer") throw refuse("type is " + repr(o["type"]) + "; only 'transformer' models can be converted");
  for (const char* key : {"transformer-train-position-embeddings", "transformer-no-projection", "transformer-pool",
                          "right-left", "ulr"}) {
    if (truthy(o[key])) throw refuse(std::string(key) + " is set");
  }
  if (truthy(o["transformer-tied-layers"])) throw refuse("transformer-tied-layers (shared layer weights) is set");
  if (truthy(o["lemma-dim-emb"]) || truthy(o["factors-dim-emb"])) {
    throw refuse("factored vocabularies (lemma-dim-emb / factors-dim-emb) are not supported");
  }
  if (truthy(o["input-types"])) throw refuse("input-types " + repr(o["input-types"]) + " is set");
  if (truthy(o["output-approx-knn"])) {
    warnings.push_back(what + ": output-approx-knn (LSH output approximation) is ignored: the engine computes all logits");
  }
  const Json& dec_ffn_depth = o["transformer-decoder-ffn-depth"];
  if (!equals_int(o["transformer-ffn-depth"], 2) || !(equals_int(dec_ffn_depth, 0) || equals_int(dec_ffn_depth, 2))) {
    throw refuse("only feed-forward blocks of depth 2 are supported (transformer-ffn-depth / "
                 "transformer-decoder-ffn-depth)");
  }
  const long long ffn = int_of(o["transformer-dim-ffn"], what, "transformer-dim-ffn");
  const Json& dec_ffn = o["transformer-decoder-dim-ffn"];
  if (!(equals_int(dec_ffn, 0) || equals_int(dec_ffn, ffn))) {
    throw refuse("transformer-decoder-dim-ffn " + text_of(dec_ffn) + " differs from transformer-dim-ffn " +
                 std::to_string(ffn));
  }
  const Json& act = o["transformer-ffn-activation"];
  if (act != "relu" && act != "swish") {
    throw refuse("transformer-ffn-activation " + repr(act) + " (the engine has relu and swish)");
  }
  if (!strip_dropout(o["transformer-postprocess-emb"]).empty()) {
    throw refuse("transformer-postprocess-emb " + repr(o["transformer-postprocess-emb"]) +
                 " (only dropout 'd' is supported)");
  }
  const std::string pre = strip_dropout(o["transformer-preprocess"]);
  const std::string post = strip_dropout(o["transformer-postprocess"]);
  const std::string top = strip_dropout(o["transformer-postprocess-top"]);
  Architecture a;
  if (pre.empty() && post == "an" && top.empty()) {
    a.norm = "post";
  } else if (pre == "n" && post == "a" && top == "n") {
    a.norm = "pre";
  } else {
    throw refuse("transformer-preprocess " + repr(o["transformer-preprocess"]) + ", -postprocess " +
                 repr(o["transformer-postprocess"]) + ", -postprocess-top " + repr(o["transformer-postprocess-top"]) +
                 ": supported are post-norm (preprocess '', postprocess 'dan') and pre-norm (preprocess 'n', "
                 "postprocess 'da', postprocess-top 'n')");
  }
  const Json& autoreg = o["transformer-decoder-autoreg"];
  if (autoreg == "self-attention") {
    a.decoder_layer_type = "transformer";
  } else if (autoreg == "rnn") {
    if (o["dec-cell"] != "ssru") {
      throw refuse("transformer-decoder-autoreg rnn with dec-cell " + repr(o["dec-cell"]) + " (only ssru is supported)");
    }
    if (truthy(o["layer-normalization"])) throw refuse("layer-normalization inside the SSRU cell is set");
    a.decoder_layer_type = "ssru";
  } else {
    throw refuse("transformer-decoder-autoreg " + repr(autoreg) + " (supported: self-attention, rnn with dec-cell ssru)");
  }
  const bool all = truthy(o["tied-embeddings-all"]), src = truthy(o["tied-embeddings-src"]),
             trg = truthy(o["tied-embeddings"]);
  a.tie = (all || (src && trg)) ? "all" : src ? "src" : trg ? "target" : "none";
  const long long d = int_of(o["dim-emb"], what, "dim-emb");
  const long long heads = int_of(o["transformer-heads"], what, "transformer-heads");
  if (heads <= 0 || d <= 0 || d % heads || d % 2) {
    throw refuse("dim-emb " + std::to_string(d) + " is not an even multiple of transformer-heads " + std::to_string(heads));
  }
  const long long enc = int_of(o["enc-depth"], what, "enc-depth"), dec = int_of(o["dec-depth"], what, "dec-depth");
  // Bounds the Python importer leaves to ModelConfig and the engine: refused here with the option
  // named rather than overflowing an int.
  auto bounded = [&](long long v, long long lo, long long hi, const char* option) {
    if (v < lo || v > hi) throw refuse(std::string(option) + " " + std::to_string(v) + " is out of range");
    return static_cast<int>(v);
  };
  a.d_model = bounded(d, 2, 1 << 16, "dim-emb");
  a.heads = bounded(heads, 1, 1 << 16, "transformer-heads");
  a.ffn_dim = bounded(ffn, 1, 1 << 20, "transformer-dim-ffn");
  a.encoder_layers = bounded(enc, 1, 1024, "enc-depth");
  a.decoder_layers = bounded(dec, 1, 1024, "dec-depth");
  a.activation = act.get<std::string>();
  a.output_bias = !truthy(o["output-omit-bias"]);
  return a;
}

}  // namespace tformer::marian
