#include "marian/architecture.h"

#include <algorithm>

#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

// Marian's pre/post-processing strings ("dan": dropout, add, norm) without the dropout, which
// inference does not apply.
std::string without_dropout(std::string ops) {
  ops.erase(std::remove(ops.begin(), ops.end(), 'd'), ops.end());
  return ops;
}

std::string quoted(const std::string& s) { return "'" + printable(s) + "'"; }

}  // namespace

Architecture architecture_from_options(const MarianOptions& o, std::vector<std::string>& warnings) {
  const std::string& what = o.what();
  std::vector<std::string> unknown;
  for (const auto& k : o.keys()) {
    if (!MarianOptions::is_architecture_option(k) && !MarianOptions::is_ignored_option(k)) unknown.push_back(printable(k));
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
    warnings.push_back(what + ": Marian options this converter does not know, ignored: " + list);
  }
  auto refuse = [&](const std::string& msg) { return Error(what + ": unsupported Marian model: " + msg); };

  const std::string type = o.text("type");
  if (type != "transformer") throw refuse("type is " + quoted(type) + "; only 'transformer' models can be converted");
  for (const char* key : {"transformer-train-position-embeddings", "transformer-no-projection", "transformer-pool",
                          "right-left", "ulr"}) {
    if (o.flag(key)) throw refuse(std::string(key) + " is set");
  }
  if (!o.list("transformer-tied-layers").empty()) throw refuse("transformer-tied-layers (shared layer weights) is set");
  if (o.integer("lemma-dim-emb") != 0 || o.integer("factors-dim-emb") != 0) {
    throw refuse("factored vocabularies (lemma-dim-emb / factors-dim-emb) are not supported");
  }
  if (const auto types = o.list("input-types"); !types.empty()) {
    std::string list;
    for (const auto& t : types) list += (list.empty() ? "" : ", ") + printable(t);
    throw refuse("input-types [" + list + "] is set");
  }
  if (!o.list("output-approx-knn").empty()) {
    warnings.push_back(what + ": output-approx-knn (LSH output approximation) is ignored: the engine computes all logits");
  }
  const long long dec_ffn_depth = o.integer("transformer-decoder-ffn-depth");
  if (o.integer("transformer-ffn-depth") != 2 || (dec_ffn_depth != 0 && dec_ffn_depth != 2)) {
    throw refuse("only feed-forward blocks of depth 2 are supported (transformer-ffn-depth / "
                 "transformer-decoder-ffn-depth)");
  }
  const long long ffn = o.integer("transformer-dim-ffn");
  const long long dec_ffn = o.integer("transformer-decoder-dim-ffn");
  if (dec_ffn != 0 && dec_ffn != ffn) {
    throw refuse("transformer-decoder-dim-ffn " + std::to_string(dec_ffn) + " differs from transformer-dim-ffn " +
                 std::to_string(ffn));
  }
  const std::string act = o.text("transformer-ffn-activation");
  if (act != "relu" && act != "swish") {
    throw refuse("transformer-ffn-activation " + quoted(act) + " (the engine has relu and swish)");
  }
  if (!without_dropout(o.text("transformer-postprocess-emb")).empty()) {
    throw refuse("transformer-postprocess-emb " + quoted(o.text("transformer-postprocess-emb")) +
                 " (only dropout 'd' is supported)");
  }
  const std::string pre = without_dropout(o.text("transformer-preprocess"));
  const std::string post = without_dropout(o.text("transformer-postprocess"));
  const std::string top = without_dropout(o.text("transformer-postprocess-top"));
  Architecture a;
  if (pre.empty() && post == "an" && top.empty()) {
    a.norm = "post";
  } else if (pre == "n" && post == "a" && top == "n") {
    a.norm = "pre";
  } else {
    throw refuse("transformer-preprocess " + quoted(o.text("transformer-preprocess")) + ", -postprocess " +
                 quoted(o.text("transformer-postprocess")) + ", -postprocess-top " +
                 quoted(o.text("transformer-postprocess-top")) +
                 ": supported are post-norm (preprocess '', postprocess 'dan') and pre-norm (preprocess 'n', "
                 "postprocess 'da', postprocess-top 'n')");
  }
  const std::string autoreg = o.text("transformer-decoder-autoreg");
  if (autoreg == "self-attention") {
    a.decoder_layer_type = "transformer";
  } else if (autoreg == "rnn") {
    if (o.text("dec-cell") != "ssru") {
      throw refuse("transformer-decoder-autoreg rnn with dec-cell " + quoted(o.text("dec-cell")) +
                   " (only ssru is supported)");
    }
    if (o.flag("layer-normalization")) throw refuse("layer-normalization inside the SSRU cell is set");
    a.decoder_layer_type = "ssru";
  } else {
    throw refuse("transformer-decoder-autoreg " + quoted(autoreg) + " (supported: self-attention, rnn with dec-cell ssru)");
  }
  const bool all = o.flag("tied-embeddings-all"), src = o.flag("tied-embeddings-src"), trg = o.flag("tied-embeddings");
  a.tie = (all || (src && trg)) ? "all" : src ? "src" : trg ? "target" : "none";
  const long long d = o.integer("dim-emb"), heads = o.integer("transformer-heads");
  if (heads <= 0 || d <= 0 || d % heads || d % 2) {
    throw refuse("dim-emb " + std::to_string(d) + " is not an even multiple of transformer-heads " + std::to_string(heads));
  }
  // Sizes beyond any real model are refused with the option named.
  auto bounded = [&](long long v, long long lo, long long hi, const char* option) {
    if (v < lo || v > hi) throw refuse(std::string(option) + " " + std::to_string(v) + " is out of range");
    return static_cast<int>(v);
  };
  a.d_model = bounded(d, 2, 1 << 16, "dim-emb");
  a.heads = bounded(heads, 1, 1 << 16, "transformer-heads");
  a.ffn_dim = bounded(ffn, 1, 1 << 20, "transformer-dim-ffn");
  a.encoder_layers = bounded(o.integer("enc-depth"), 1, 1024, "enc-depth");
  a.decoder_layers = bounded(o.integer("dec-depth"), 1, 1024, "dec-depth");
  a.activation = act;
  a.output_bias = !o.flag("output-omit-bias");
  return a;
}

}  // namespace tformer::marian
