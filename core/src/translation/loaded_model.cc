#include "translation/loaded_model.h"

#include <cstdint>
#include <utility>

#include "text/passthrough.h"
#include "tformer/catalog.h"
#include "translation/model_info.h"

namespace tformer {
namespace {

std::unique_ptr<Kernels> make_kernels(const TranslatorConfig& c) {
  validate(c);
  return c.kernels == KernelLibrary::kReference ? make_reference_kernels() : make_xnnpack_kernels(c.threads);
}

}  // namespace

LoadedModel::LoadedModel(ModelFile f, const TranslatorConfig& translator_config)
    : config(f.config()), kernels(make_kernels(translator_config)) {
  const TokenizerSpec& spec = f.tokenizer();
  auto table = [&](const std::string& name) { return name.empty() ? std::string() : f.bytes_of(name); };
  source_tokenizer.emplace(f.bytes_of(spec.source), table(spec.source_vocab), "tokenizer table '" + spec.source_vocab + "'");
  target_tokenizer.emplace(f.bytes_of(spec.target), table(spec.target_vocab), "tokenizer table '" + spec.target_vocab + "'");
  check_tokenizers();
  f.check_memory();
  model.emplace(*kernels, f);
  if (f.has("shortlist")) {
    const std::string blob = f.bytes_of("shortlist");
    // Marian's rule: a shortlist adds the source ids themselves when both sides share one vocabulary.
    const bool shared = spec.source_vocab.empty() ? spec.source == spec.target : spec.source_vocab == spec.target_vocab;
    shortlist.emplace(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), source_tokenizer->vocab_size(),
                      target_tokenizer->vocab_size(), shared);
  }
  info = describe_model(f, config);
  segmenter.emplace(config, *source_tokenizer);
  // The languages of the metadata, where it names them: the decimal marks passthrough writes the
  // numbers it puts back with.
  std::pair<char, char> marks{0, 0};
  if (f.header().contains("metadata") && f.header()["metadata"].is_object()) {
    const auto& meta = f.header()["metadata"];
    auto mark = [&](const char* key) {
      return meta.contains(key) && meta[key].is_string() ? decimal_mark(meta[key].get<std::string>()) : char(0);
    };
    marks = {mark("source_language"), mark("target_language")};
  }
  responses.emplace(config, *source_tokenizer, *target_tokenizer, marks);
  file.emplace(std::move(f));
}

void LoadedModel::check_tokenizers() const {
  const ModelConfig& c = config;
  // A side's vocabulary may be smaller than vocab_size when source and target vocabularies
  // differ in size (the embeddings are padded to the larger one); never larger.
  for (const Tokenizer* t : {&*source_tokenizer, &*target_tokenizer})
    if (t->vocab_size() > c.vocab_size)
      throw Error(std::string("invalid model file: the ") + (t->has_vocab_table() ? "vocabulary table" : "SentencePiece model") +
                  " has " + std::to_string(t->vocab_size()) + " pieces but the config says vocab_size " +
                  std::to_string(c.vocab_size));
  // Every special id must be a piece of both tokenizers: an id past a SentencePiece model's end
  // stops native builds in a CHECK and reads as "" in wasm.
  const std::pair<const char*, int> specials[] = {
      {"pad_id", c.pad_id}, {"unk_id", c.unk_id}, {"bos_id", c.bos_id}, {"eos_id", c.eos_id}};
  for (const auto& [key, id] : specials) {
    if (id < 0) continue;  // not used by this model
    for (const auto& [tokenizer, side] : {std::pair{&*source_tokenizer, "source"}, std::pair{&*target_tokenizer, "target"}})
      if (id >= tokenizer->vocab_size())
        throw Error(std::string("invalid model file: config '") + key + "' = " + std::to_string(id) +
                    " is not a piece of the " + side + " tokenizer, which has " +
                    std::to_string(tokenizer->vocab_size()) + " pieces");
  }
}

const std::string& LoadedModel::identity() {
  if (identity_.empty())
    identity_ = catalog::sha256_hex(file->bytes().data(), file->bytes().size()) + " " + kernels->name();
  return identity_;
}

TensorFloats LoadedModel::tensor_floats(const std::string& name) const {
  const TensorEntry& t = file->tensor(name);
  TensorFloats out;
  out.size = size_t(t.elements());
  if (t.dtype == DType::kF32 && reinterpret_cast<uintptr_t>(t.data) % alignof(float) == 0) {
    out.data = reinterpret_cast<const float*>(t.data);
  } else {
    out.converted = file->floats(name, t.shape);
    out.data = out.converted.data();
  }
  return out;
}

}  // namespace tformer
