// A model loaded for translation, shared (by shared_ptr) by a Translator and every session it
// began, so that a session may outlive its Translator: the file, its config, the kernels and the
// network, both tokenizers, the steps of a translation built on them (segmenter, response
// builder), what info() reports, and the lock that serialises the work of all of them.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "decoding/shortlist.h"
#include "kernels/kernels.h"
#include "model/config.h"
#include "model/model_file.h"
#include "text/tokenizer.h"
#include "tformer/translation_memory.h"
#include "tformer/translator.h"
#include "transformer/model.h"
#include "translation/response.h"
#include "translation/segmenter.h"

namespace tformer {

struct LoadedModel {
  // Checks what the network's own loading does not (the tokenizers against the config, the memory
  // the model needs) and builds the network on the kernel library the config asks for. Throws
  // tformer::Error naming the problem.
  LoadedModel(ModelFile file, const TranslatorConfig& translator_config);
  LoadedModel(const LoadedModel&) = delete;  // the parts below point into it
  LoadedModel& operator=(const LoadedModel&) = delete;

  // Translator::tensor_floats(): a weight tensor as float32, in place when the file stores it so.
  TensorFloats tensor_floats(const std::string& name) const;

  ModelConfig config;
  std::unique_ptr<Kernels> kernels;  // the kernel library (TranslatorConfig::kernels)
  std::optional<Tokenizer> source_tokenizer, target_tokenizer;
  std::optional<TransformerModel> model;
  // The file's lexical shortlist (tensor "shortlist"), if it has one.
  std::optional<LexicalShortlist> shortlist;
  // Kept for tensor_floats(): an external backend (WebGPU) uploads the weights from it.
  std::optional<ModelFile> file;
  ModelInfo info;
  std::optional<Segmenter> segmenter;
  std::optional<ResponseBuilder> responses;
  // The translation memory sessions look sentences up in (Translator::use_memory), or none.
  std::shared_ptr<TranslationMemory> memory;
  std::mutex mutex;

  // The model as the translation memory's keys name it: the sha256 of its file and the kernel
  // library (whose rounding may differ). Computed on first use, under `mutex`.
  const std::string& identity();

 private:
  void check_tokenizers() const;
  std::string identity_;
};

}  // namespace tformer
