#include "marian/metadata.h"

#include <set>

#include "decoding/shortlist.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\n\r"), b = s.find_last_not_of(" \t\n\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// The alignment Marian trains with guided alignment (option guided-alignment, a file, or "none")
// and returns: the first head of the cross-attention of layer transformer-guided-alignment-layer
// ("last" or 1-based). Null for a model trained without. (Marian keeps
// transformer-guided-alignment-layer in the model's options but not guided-alignment: that one
// comes from the training config, --config.)
Json alignment_head(const MarianOptions& o, int decoder_layers) {
  if (!o.given("guided-alignment")) return nullptr;
  const std::string ga = trimmed(o.text("guided-alignment"));
  if (ga.empty() || ga == "none" || ga == "false") return nullptr;
  const std::string layer = o.given("transformer-guided-alignment-layer") ? trimmed(o.text("transformer-guided-alignment-layer")) : "last";
  int index = decoder_layers - 1;
  if (layer != "last") {
    size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(layer, &used, 10);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != layer.size() || n < 1 || n > decoder_layers) {
      throw Error(o.what() + ": transformer-guided-alignment-layer '" + printable(layer) +
                  "' is not 'last' or a decoder layer 1.." + std::to_string(decoder_layers));
    }
    index = int(n - 1);
  }
  return {{"layer", index}, {"head", 0}};
}

// A vocabulary table as the .tfm stores it (docs/FORMAT.md): the pieces by id, each followed by
// a NUL byte.
Tensor table_tensor(const std::vector<std::string>& pieces, const std::string& what) {
  std::string out;
  std::set<std::string> seen;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    if (p.empty()) throw Error(what + ": vocabulary entry " + std::to_string(i) + " is empty");
    if (p.find('\0') != std::string::npos) {
      throw Error(what + ": vocabulary entry " + std::to_string(i) + " contains a NUL character");
    }
    if (!seen.insert(p).second) {
      throw Error(what + ": vocabulary entry " + std::to_string(i) + " ('" + printable(p) + "') occurs twice");
    }
    out += p;
    out += '\0';
  }
  return bytes_tensor(out);
}

}  // namespace

Json engine_config(const MarianModel& m, const Plan& plan, const Converted& c, int max_positions) {
  const Architecture& a = plan.arch;
  Json config;
  config["vocab_size"] = plan.vocab;
  config["d_model"] = a.d_model;
  config["heads"] = a.heads;
  config["ffn_dim"] = a.ffn_dim;
  config["encoder_layers"] = a.encoder_layers;
  config["decoder_layers"] = a.decoder_layers;
  config["norm"] = a.norm;
  config["prenorm_raw_self_kv"] = a.norm == "pre";  // Marian's pre-norm feeds the raw input to self-attention k/v
  config["activation"] = a.activation;
  config["max_positions"] = max_positions;
  config["positional_encoding"] = "marian";
  config["decoder_start"] = "zero";
  config["source_bos"] = false;
  config["source_eos"] = true;
  config["pad_id"] = m.src.eos_id;
  config["unk_id"] = m.src.unk_id;
  config["bos_id"] = -1;
  config["eos_id"] = m.src.eos_id;
  config["tied_embeddings"] = a.tie == "src" ? "none" : a.tie;  // "src": two tensors, one copy each
  config["output_bias"] = c.output_bias;
  config["layer_norm_eps"] = 1e-6;
  config["suppress_unk"] = true;
  config["decoder_layer_type"] = a.decoder_layer_type;
  if (m.src.eos_id < 0 || m.src.eos_id >= plan.vocab) throw Error("invalid model config: eos_id out of range");
  return config;
}

Json tokenizer_section(const MarianModel& m, Tensors& tensors) {
  const Vocab &src = m.src, &tgt = m.tgt;
  Json tokenizer;
  tokenizer["type"] = src.has_table() ? "sentencepiece_vocab" : "sentencepiece";
  tensors.set("tokenizer.source", bytes_tensor(src.spm_bytes));
  tokenizer["source"] = "tokenizer.source";
  if (tgt.spm_bytes == src.spm_bytes) {
    tokenizer["target"] = "tokenizer.source";
  } else {
    tensors.set("tokenizer.target", bytes_tensor(tgt.spm_bytes));
    tokenizer["target"] = "tokenizer.target";
  }
  if (src.has_table()) {
    tensors.set("tokenizer.source_vocab", table_tensor(src.table, printable(src.table_name)));
    tokenizer["source_vocab"] = "tokenizer.source_vocab";
    if (tgt.table == src.table) {
      tokenizer["target_vocab"] = "tokenizer.source_vocab";
    } else {
      tensors.set("tokenizer.target_vocab", table_tensor(tgt.table, printable(tgt.table_name)));
      tokenizer["target_vocab"] = "tokenizer.target_vocab";
    }
  }
  return tokenizer;
}

Json metadata(const MarianModel& m, const Plan& plan, const Converted& c, const std::string& name,
              const std::string& weights) {
  Json marian;
  marian["model"] = m.files.model;
  marian["item_types"] = plan.item_types;
  const auto vocab_file = [](const ModelFiles::Side& s) { return s.table.empty() ? s.spm : s.table; };
  marian["vocabs"] = Json::array({vocab_file(m.files.sides[0]), vocab_file(m.files.sides[1])});
  marian["vocab_sizes"] = Json::array({plan.source_vocab, plan.target_vocab});
  marian["embeddings"] = plan.arch.tie;
  Json options = Json::object();
  for (const auto& k : m.options.keys()) {
    if (MarianOptions::is_architecture_option(k) || k == "dim-vocabs") options[k] = m.options.typed(k);
  }
  marian["options"] = options;
  if (!plan.alphas.empty()) marian["quant_mult_a"] = plan.alphas;

  Json meta;
  meta["name"] = name;
  meta["converted_from"] = "marian";
  meta["marian"] = marian;
  meta["weights"] = weights != "keep" ? weights : (c.quantized ? "int8" : "f32");
  if (Json head = alignment_head(m.options, plan.arch.decoder_layers); !head.is_null()) meta["alignment_head"] = head;
  return meta;
}

void attach_shortlist(Folder& folder, const MarianModel& m, Tensors& tensors, MarianImport& result) {
  for (const std::string& lex : m.files.shortlists) {
    const MarianBytes b = folder.bytes(lex, FileKind::kShortlist);
    if (!LexicalShortlist::is_binary(b.data, b.size)) {
      result.warnings.push_back(printable(lex) + " is not a binary lexical shortlist (a text one?): not used");
      continue;
    }
    const bool shared = m.src.has_table() ? m.src.table == m.tgt.table : m.src.spm_bytes == m.tgt.spm_bytes;
    try {
      const LexicalShortlist checked(b.data, b.size, int(m.src.size()), int(m.tgt.size()), shared);
      result.shortlist.first = checked.first_num();
      result.shortlist.best = checked.best_num();
      result.shortlist.candidates = checked.entries();
    } catch (const Error& e) {
      throw Error(printable(lex) + ": " + e.what());
    }
    result.shortlist.file = lex;
    result.shortlist.source_words = m.src.size();
    result.has_shortlist = true;
    tensors.set("shortlist", bytes_tensor(b.data, b.size));
    return;
  }
}

Json summary(const MarianModel& m, const Plan& plan, const Converted& c, const Json& config, const Json& tokenizer,
             const Json& metadata, const MarianImport& result) {
  Json ignored = Json::array(), unknown = Json::array();
  for (const auto& k : m.options.keys()) {
    if (MarianOptions::is_ignored_option(k)) ignored.push_back(k);
    else if (!MarianOptions::is_architecture_option(k)) unknown.push_back(k);
  }
  const Architecture& a = plan.arch;
  Json s;
  s["name"] = result.name;
  s["model"] = m.files.model;
  s["vocabs"] = metadata["marian"]["vocabs"];
  s["vocab_sizes"] = metadata["marian"]["vocab_sizes"];
  s["joint_vocab"] = m.src.same_as(m.tgt);
  s["config"] = config;
  s["variant"] = std::string(a.decoder_layer_type == "ssru" ? "SSRU" : "self-attention") + " decoder, " + a.norm +
                 "-norm, " + a.activation + ", embeddings tied " + a.tie;
  s["tokenizer"] = tokenizer["type"];
  s["item_types"] = metadata["marian"]["item_types"];
  s["weights"] = metadata["weights"];
  s["quantized_matrices"] = c.quantized;
  s["alphas"] = plan.alphas.size();
  s["ignored_options"] = ignored;
  s["unknown_options"] = unknown;
  if (result.has_shortlist) {
    const MarianShortlist& l = result.shortlist;
    s["shortlist"] = {{"file", l.file}, {"first", l.first}, {"best", l.best}, {"source_words", l.source_words},
                      {"candidates", l.candidates}};
  } else {
    s["shortlist"] = nullptr;
  }
  s["warnings"] = result.warnings;
  return s;
}

}  // namespace tformer::marian
