// The public facade of the engine: load a .tfm model, translate text.
//
//   tformer::Translator t("model.tfm");
//   auto out = t.translate({"Ein kleiner Test."}, {});
//   std::cout << out[0].text;
//
// A Translator is not safe for concurrent use from several threads; it serialises calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tformer/error.h"
#include "tformer/options.h"

namespace tformer {

struct Hypothesis {
  std::string text;
  std::vector<int> tokens;  // target ids, EOS included
  float score = 0.f;        // summed log-probability / length^length_penalty
};

struct SentenceTranslation {
  std::string source;                     // the sentence as split from the input
  std::vector<int> source_tokens;         // ids fed to the encoder (BOS/EOS per model config)
  std::vector<std::string> source_pieces;  // one per source token
  std::vector<std::string> target_pieces;  // one per target token of the best hypothesis
  std::vector<Hypothesis> hypotheses;     // best first; nbest of them
  // Row-major [target tokens x source tokens] cross-attention weights of the best hypothesis
  // (last decoder layer, averaged over heads); empty unless requested.
  std::vector<float> alignment;
};

struct Translation {
  std::string text;  // the paragraph's translation (sentences joined by a space)
  std::vector<SentenceTranslation> sentences;
  const Hypothesis& best(size_t sentence) const { return sentences.at(sentence).hypotheses.at(0); }
};

struct TensorInfo {
  std::string name, dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

struct ModelInfo {
  std::string config_json;    // the architecture, as stored in the file
  std::string metadata_json;  // free-form metadata (name, languages, training)
  std::vector<TensorInfo> tensors;
  uint64_t file_bytes = 0;
  uint64_t parameters = 0;
  int vocab_size = 0, d_model = 0, heads = 0, ffn_dim = 0, encoder_layers = 0, decoder_layers = 0;
};

class Translator {
 public:
  // Loads from a file path. Throws tformer::Error with a precise message on any problem.
  explicit Translator(const std::string& model_path, const TranslatorConfig& config = {});
  // Loads from a buffer holding a whole .tfm file; the buffer may be freed afterwards.
  Translator(const uint8_t* data, size_t size, const TranslatorConfig& config = {});
  // Takes ownership of a buffer holding a whole .tfm file (no copy).
  Translator(std::vector<uint8_t> bytes, const TranslatorConfig& config = {});
  ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // Translates each input paragraph. Input must be valid UTF-8.
  std::vector<Translation> translate(const std::vector<std::string>& texts,
                                     const TranslateOptions& options = {});

  const ModelInfo& info() const;
  std::string backend_name() const;
  int threads() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tformer
