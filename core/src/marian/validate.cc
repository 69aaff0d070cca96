#include "marian/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tformer/error.h"
#include "util/little_endian.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string first_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string s;
  for (size_t i = 0; i < names.size() && i < 8; ++i) s += (i ? ", " : "") + printable(names[i]);
  return names.size() > 8 ? s + " ..." : s;
}

bool is_float(const std::string& type) { return type == "float32" || type == "float16" || type == "float64"; }

void check_vocabularies(const MarianModel& m, const Plan& plan, const Architecture& arch,
                        std::vector<std::string>& warnings) {
  const Vocab &src = m.src, &tgt = m.tgt;
  if (src.eos_id != tgt.eos_id || src.unk_id != tgt.unk_id) {
    throw Error("source and target vocabularies disagree on </s>/<unk> ids (" + std::to_string(src.eos_id) + "/" +
                std::to_string(src.unk_id) + " vs " + std::to_string(tgt.eos_id) + "/" + std::to_string(tgt.unk_id) +
                "); the engine needs them equal");
  }
  if (src.has_table() != tgt.has_table()) {
    throw Error("one vocabulary is a .yml table and the other a SentencePiece model: not supported");
  }
  const int64_t vs = plan.source_vocab, vt = plan.target_vocab;
  if (m.options.given("dim-vocabs")) {
    const auto dv = m.options.list("dim-vocabs");
    bool same = dv.size() == 2;
    std::vector<long long> sizes;
    for (const auto& d : dv) {
      try {
        sizes.push_back(std::stoll(d));
      } catch (const std::exception&) {
        same = false;
      }
    }
    same = same && sizes.size() == 2 && sizes[0] == vs && sizes[1] == vt;
    if (!same) {
      std::string given;
      for (const auto& d : dv) given += (given.empty() ? "" : ", ") + printable(d);
      throw Error(m.what + ": dim-vocabs [" + given + "] does not match the vocabularies (" + std::to_string(vs) +
                  " source and " + std::to_string(vt) + " target entries)");
    }
  }
  if ((arch.tie == "all" || arch.tie == "src") && vs != vt) {
    throw Error(m.what + ": tied source/target embeddings need vocabularies of equal size (" + std::to_string(vs) +
                " vs " + std::to_string(vt) + ")");
  }
  for (const auto& p : src.table) {
    if (p.size() >= 4 && p.compare(0, 2, ">>") == 0 && ends_with(p, "<<")) {
      warnings.push_back(m.what + ": the source vocabulary has target-language tokens (>>xx<<): a multilingual OPUS-MT "
                         "model. The engine tokenizes such a token as text; translating with it is not supported yet.");
      break;
    }
  }
}

// Each parameter: a float or intgemm item (with a usable multiplier) of the shape the options need.
void check_parameter(const MarianModel& m, const Plan& plan, const Parameter& p) {
  const MarianItem& it = item_of(m, plan, p);
  const std::string name = printable(it.name);
  if (!is_float(it.type) && !it.is_intgemm()) {
    throw Error(m.what + ": item " + name + " has type " + it.type + ", not a weight type");
  }
  if (it.is_intgemm()) {
    const float mult = load_f32_le(it.data + size_t(it.elements()) * type_size(it.type));
    if (!std::isfinite(mult) || mult <= 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", double(mult));
      throw Error(m.what + ": item " + name + " has quantisation multiplier " + buf);
    }
    if (it.shape.size() != 2) {
      throw Error(m.what + ": " + it.type + " item " + name + " has shape " + it.shape_string() + ", expected 2-D");
    }
  }
  if (plan.legacy_output && p.marian == kOutput && !(it.type == "float32" || it.type == "float16")) {
    throw Error(m.what + ": " + kLegacyOutput + " of type " + it.type + " is not supported");
  }
  const int64_t d = plan.arch.d_model, ffn = plan.arch.ffn_dim;
  std::vector<int64_t> want;
  if (p.kind == 'E') {
    want = {(p.marian == "Wemb" || p.marian == "encoder_Wemb") ? plan.source_vocab : plan.target_vocab, d};
    if (plan.legacy_output && p.marian == kOutput) std::swap(want[0], want[1]);
  } else if (p.kind == 'W') {
    want = {ends_with(p.marian, "_W2") ? ffn : d, ends_with(p.marian, "_W1") ? ffn : d};
  } else {
    want = {1, p.marian == "decoder_ff_logit_out_b" ? plan.target_vocab : (ends_with(p.marian, "_b1") ? ffn : d)};
  }
  if (it.shape != want && !(p.kind == 'b' && it.shape == std::vector<int64_t>{want[1]})) {
    throw Error(m.what + ": parameter " + name + " has shape " + it.shape_string() + ", the options need [" +
                std::to_string(want[0]) + ", " + std::to_string(want[1]) + "]");
  }
}

}  // namespace

const MarianItem& item_of(const MarianModel& m, const Plan& plan, const Parameter& p) {
  return *m.item(plan.legacy_output && p.marian == kOutput ? kLegacyOutput : p.marian);
}

Plan validate(const MarianModel& m, std::vector<std::string>& warnings) {
  Plan plan;
  plan.arch = architecture_from_options(m.options, warnings);
  plan.source_vocab = int64_t(m.src.size());
  plan.target_vocab = int64_t(m.tgt.size());
  plan.vocab = std::max(plan.source_vocab, plan.target_vocab);
  check_vocabularies(m, plan, plan.arch, warnings);

  plan.parameters = parameter_map(plan.arch);
  std::set<std::string> expected;
  for (const auto& p : plan.parameters) expected.insert(p.marian);
  plan.legacy_output = expected.count(kOutput) && !m.item(kOutput) && m.item(kLegacyOutput);
  if (plan.legacy_output) expected.insert(kLegacyOutput);

  std::vector<std::string> unknown, missing;
  for (const MarianItem& it : m.items) {
    if (expected.count(it.name) || it.name.rfind("special:", 0) == 0) continue;
    const bool scalar = it.shape == std::vector<int64_t>{1} || it.shape == std::vector<int64_t>{1, 1};
    if (ends_with(it.name, "_QuantMultA") && it.type == "float32" && scalar) {
      plan.alphas[it.name.substr(0, it.name.size() - 11)] = double(load_f32_le(it.data));
    } else {
      unknown.push_back(it.name);
    }
  }
  if (!unknown.empty()) {
    throw Error(m.what + ": parameters this converter does not know: " + first_names(unknown) +
                " (a Marian feature the engine lacks?)");
  }
  for (const auto& p : plan.parameters) {
    if (!m.item(p.marian) && !(plan.legacy_output && p.marian == kOutput)) missing.push_back(p.marian);
  }
  if (!missing.empty()) {
    throw Error(m.what + ": missing parameters " + first_names(missing) + " for the architecture its options describe");
  }
  for (const auto& p : plan.parameters) {
    check_parameter(m, plan, p);
    plan.item_types.insert(item_of(m, plan, p).type);
  }
  return plan;
}

}  // namespace tformer::marian
