#include "marian/options.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

enum class Type { kFlag, kInteger, kText, kList };

struct Default {
  Type type;
  Json value;  // as YAML text, as a file would give it
};

// Marian's defaults for the options that shape a transformer (marian-dev
// src/common/config_parser.cpp).
const std::map<std::string, Default>& defaults() {
  static const std::map<std::string, Default> d = {
      {"type", {Type::kText, "amun"}},
      {"dim-emb", {Type::kInteger, "512"}},
      {"enc-depth", {Type::kInteger, "1"}},
      {"dec-depth", {Type::kInteger, "1"}},
      {"transformer-heads", {Type::kInteger, "8"}},
      {"transformer-dim-ffn", {Type::kInteger, "2048"}},
      {"transformer-decoder-dim-ffn", {Type::kInteger, "0"}},
      {"transformer-ffn-depth", {Type::kInteger, "2"}},
      {"transformer-decoder-ffn-depth", {Type::kInteger, "0"}},
      {"transformer-ffn-activation", {Type::kText, "swish"}},
      {"transformer-preprocess", {Type::kText, ""}},
      {"transformer-postprocess", {Type::kText, "dan"}},
      {"transformer-postprocess-emb", {Type::kText, "d"}},
      {"transformer-postprocess-top", {Type::kText, ""}},
      {"transformer-decoder-autoreg", {Type::kText, "self-attention"}},
      {"dec-cell", {Type::kText, "gru"}},
      {"tied-embeddings", {Type::kFlag, "false"}},
      {"tied-embeddings-src", {Type::kFlag, "false"}},
      {"tied-embeddings-all", {Type::kFlag, "false"}},
      {"transformer-train-position-embeddings", {Type::kFlag, "false"}},
      {"transformer-no-projection", {Type::kFlag, "false"}},
      {"transformer-pool", {Type::kFlag, "false"}},
      {"transformer-tied-layers", {Type::kList, Json::array()}},
      {"output-omit-bias", {Type::kFlag, "false"}},
      {"layer-normalization", {Type::kFlag, "false"}},
      {"right-left", {Type::kFlag, "false"}},
      {"lemma-dim-emb", {Type::kInteger, "0"}},
      {"ulr", {Type::kFlag, "false"}},
      {"factors-dim-emb", {Type::kInteger, "0"}},
      {"input-types", {Type::kList, Json::array()}},
      {"output-approx-knn", {Type::kList, Json::array()}},
  };
  return d;
}

// Options that do not change what a trained transformer computes at inference.
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
      "shortlist", "dim-vocabs",
      // Deprecated in Marian (cli_wrapper.cpp: DEPRECATED_OPTIONS) and unused, but still written
      // into every model's special:model.yml (EncoderDecoder's model features): Firefox's models carry it.
      "special-vocab"};
  return s;
}

// How a value reads in a message: text quoted, a list or mapping as JSON.
std::string shown(const Json& v) {
  return printable(v.is_string() ? "'" + v.get<std::string>() + "'" : v.dump());
}

}  // namespace

MarianOptions::MarianOptions(Json options, std::string what) : options_(std::move(options)), what_(std::move(what)) {}

bool MarianOptions::is_architecture_option(const std::string& key) { return defaults().count(key) != 0; }
bool MarianOptions::is_ignored_option(const std::string& key) { return ignored().count(key) != 0; }

const Json* MarianOptions::value(const std::string& key) const {
  auto it = options_.find(key);
  if (it != options_.end() && !it->is_null()) return &*it;
  auto d = defaults().find(key);
  return d == defaults().end() ? nullptr : &d->second.value;
}

bool MarianOptions::given(const std::string& key) const {
  auto it = options_.find(key);
  return it != options_.end() && !it->is_null();
}

bool MarianOptions::flag(const std::string& key) const {
  const Json* v = value(key);
  if (!v) return false;
  bool b = false;
  if (!v->is_string() || !YAML::convert<bool>::decode(YAML::Node(v->get<std::string>()), b)) {
    throw Error(what_ + ": option " + key + " is " + shown(*v) + ", not true or false");
  }
  return b;
}

long long MarianOptions::integer(const std::string& key) const {
  const Json* v = value(key);
  if (!v) return 0;
  long long n = 0;
  if (!v->is_string() || !YAML::convert<long long>::decode(YAML::Node(v->get<std::string>()), n)) {
    throw Error(what_ + ": option " + key + " is " + shown(*v) + ", not an integer");
  }
  return n;
}

std::string MarianOptions::text(const std::string& key) const {
  const Json* v = value(key);
  if (!v) return "";
  if (!v->is_string()) throw Error(what_ + ": option " + key + " is " + shown(*v) + ", not text");
  return v->get<std::string>();
}

std::vector<std::string> MarianOptions::list(const std::string& key) const {
  const Json* v = value(key);
  std::vector<std::string> out;
  if (!v) return out;
  if (v->is_string()) return {v->get<std::string>()};
  if (!v->is_array()) throw Error(what_ + ": option " + key + " is " + shown(*v) + ", not a list");
  for (const Json& x : *v) {
    if (!x.is_string()) throw Error(what_ + ": option " + key + " is " + shown(*v) + ", not a list of values");
    out.push_back(x.get<std::string>());
  }
  return out;
}

std::vector<std::string> MarianOptions::keys() const {
  std::vector<std::string> k;
  for (const auto& [key, v] : options_.items()) k.push_back(key);
  std::sort(k.begin(), k.end());
  return k;
}

Json MarianOptions::typed(const std::string& key) const {
  const Json& raw = options_.at(key);
  auto d = defaults().find(key);
  const Type type = key == "dim-vocabs" ? Type::kList : d == defaults().end() ? Type::kText : d->second.type;
  try {
    switch (type) {
      case Type::kFlag: return raw.is_null() ? Json(nullptr) : Json(flag(key));
      case Type::kInteger: return raw.is_null() ? Json(nullptr) : Json(integer(key));
      case Type::kText: return raw;
      case Type::kList: {
        if (!raw.is_array()) return raw;
        Json out = Json::array();
        for (const Json& x : raw) {
          long long n = 0;
          if (x.is_string() && YAML::convert<long long>::decode(YAML::Node(x.get<std::string>()), n)) out.push_back(n);
          else out.push_back(x);
        }
        return out;
      }
    }
  } catch (const Error&) {
  }
  return raw;
}

}  // namespace tformer::marian
