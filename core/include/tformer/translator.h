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

#include "tformer/annotated_text.h"
#include "tformer/confidence.h"
#include "tformer/error.h"
#include "tformer/model_plan.h"
#include "tformer/options.h"
#include "tformer/translation_memory.h"

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
  // The bytes each token stands for (tformer/annotated_text.h): one per source token, of
  // `source`; one per target token of the best hypothesis, of its text. BOS and EOS stand for
  // none: empty ranges where the sentence begins and ends.
  std::vector<ByteRange> source_ranges, target_ranges;
  std::vector<Hypothesis> hypotheses;     // best first; nbest of them
  // Row-major [target tokens x source tokens] cross-attention weights of the best hypothesis
  // (the model's alignment head where its metadata names one, else the mean of the last decoder
  // layer's heads); empty unless requested.
  std::vector<float> alignment;
  // The best hypothesis's word confidence and sentence score; empty unless requested
  // (TranslateOptions::confidence).
  SentenceConfidence confidence;
};

struct Translation {
  std::string text;  // the paragraph's translation (sentences joined by a space)
  std::vector<SentenceTranslation> sentences;
  // The input text and the translation (`text`) with the bytes of each sentence (one per
  // `sentences` item) and of each of its tokens (source tokens; the best hypothesis's tokens),
  // within the whole text. Empty in HTML mode: the model translated the blocks' text, not the
  // markup that `text` holds.
  AnnotatedText source, target;
  const Hypothesis& best(size_t sentence) const { return sentences.at(sentence).hypotheses.at(0); }
};

// A sentence handed out as soon as its search ended (TranslationSession::take_completed), with
// its place in the results that translate() gives.
struct CompletedSentence {
  size_t segment = 0;     // its place among all sentences of the request, in input order
  size_t paragraph = 0;   // which input text
  size_t index = 0;       // which of that text's Translation::sentences
  std::string separator;  // what Translation::text has before it: "" (its first), " " or line breaks
  SentenceTranslation sentence;
};

struct TensorInfo {
  std::string name, dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

struct ModelInfo {
  std::string config_json;    // the architecture, as stored in the file (absent keys: defaults)
  std::string metadata_json;  // free-form metadata (name, languages, training)
  std::vector<TensorInfo> tensors;
  uint64_t file_bytes = 0;
  uint64_t parameters = 0;
  int vocab_size = 0, d_model = 0, heads = 0, ffn_dim = 0, encoder_layers = 0, decoder_layers = 0;
};

class TranslationSession;

// The float32 values of one weight tensor of the model file (for a backend outside the engine,
// such as WebGPU, to upload). `data` points into the Translator's copy of the file when the file
// stores the tensor as f32 (valid while the Translator lives), else into `converted`.
struct TensorFloats {
  const float* data = nullptr;
  size_t size = 0;
  std::vector<float> converted;  // f16 widened or int8 dequantised, when needed
};

class Translator {
 public:
  // Loads from a file path. Throws tformer::Error (phase kLoad: kInvalidModel, kInvalidOptions for
  // the config, kResources for threads) with a precise message on any problem.
  explicit Translator(const std::string& model_path, const TranslatorConfig& config = {});
  // Loads from a buffer holding a whole .tfm file; the buffer may be freed afterwards.
  Translator(const uint8_t* data, size_t size, const TranslatorConfig& config = {});
  // Takes ownership of a buffer holding a whole .tfm file (no copy).
  Translator(std::vector<uint8_t> bytes, const TranslatorConfig& config = {});
  ~Translator();
  Translator(const Translator&) = delete;
  Translator& operator=(const Translator&) = delete;

  // Translates each input paragraph. Input must be valid UTF-8. The same as begin() followed by
  // `while (s->next() != Need::kDone) s->compute_on_cpu();` and `s->results()`. A refused request
  // throws tformer::Error in phase kRequest (kInvalidOptions; kInvalidText or kTextTooLong naming
  // the input text), a failure while translating in phase kTranslate.
  std::vector<Translation> translate(const std::vector<std::string>& texts,
                                     const TranslateOptions& options = {});

  // Starts a translation driven step by step, for a caller that computes the encoder and the
  // output projection elsewhere (TranslationSession). Validates everything translate() does.
  // The session keeps the model alive: it may outlive this Translator.
  std::unique_ptr<TranslationSession> begin(const std::vector<std::string>& texts,
                                            const TranslateOptions& options = {});

  // Answers sentences translated before from `memory`, and stores each sentence it translates
  // there (tformer/translation_memory.h); nullptr: none (the default). Sessions begun before keep
  // what they had. The first call hashes the model file (its identity in the memory's keys).
  void use_memory(std::shared_ptr<TranslationMemory> memory);
  // The model as the memory's keys name it: the sha256 (hex) of its file and the kernel library.
  std::string model_identity();

  // For an external backend: a weight tensor by its name in docs/FORMAT.md, as float32.
  TensorFloats tensor_floats(const std::string& name) const;
  // The positional encodings the engine adds, [max_positions, d_model] row-major.
  const std::vector<float>& positions() const;
  // For an external backend: the encoder and the output projection as the engine built them
  // (which tensors each product reads, norm placement, flags), so that it needs no copy of the
  // model's structure.
  ModelPlan plan() const;

  const ModelInfo& info() const;
  // The kernel library in use: "xnnpack" or "reference" (TranslatorConfig::kernels).
  std::string kernels_name() const;
  int threads() const;

 private:
  friend class TranslationSession;
  class Impl;
  std::shared_ptr<Impl> impl_;
};

// A translation as a resumable sequence of requests, so that the encoder and the decoder's output
// projection (the matmul-heavy work) can run on another backend (WebGPU, driven from JS) while
// tokenizing, the decoder layers and the search stay here. Each step:
//
//   for (auto need = s->next(); need != Need::kDone; need = s->next()) {
//     if (need == Need::kEncode)   // encode_request() -> states [batch * length * d_model]
//       s->provide_encoder_output(states, size);
//     else                         // hidden(&rows) [rows * d_model] -> logits [rows * vocab]
//       s->provide_logits(logits, size);  // or provide_candidates(): the best few per row
//     // or, for either request: s->compute_on_cpu();
//   }
//   auto translations = s->results();
//
// Values provided from outside are checked for size and NaN; a rejected value leaves the request
// pending, so compute_on_cpu() can still answer it (kInvalidValues, in the phase of the call). Calls
// out of order throw tformer::Error (kWrongState; calls_that_fit() says what would fit). A
// session is not thread-safe; sessions of one Translator may interleave (each call holds the
// Translator's lock).
class TranslationSession {
 public:
  enum class Need { kEncode, kProject, kDone };

  // A padded batch of source sentences: ids [batch * length] row-major (positions past a
  // sentence's length hold the model's pad_id), lengths [batch].
  struct EncodeRequest {
    size_t batch = 0, length = 0;
    std::vector<int32_t> ids, lengths;
  };

  ~TranslationSession();
  TranslationSession(const TranslationSession&) = delete;
  TranslationSession& operator=(const TranslationSession&) = delete;

  // Does the engine's own work (the decoder layers, the search rules, the next batch) until a
  // request needs answering, and says which.
  Need next();
  // The pending kEncode request.
  const EncodeRequest& encode_request() const;
  // Answers it: the encoder's output [batch * length * d_model] (rows past a length: any value).
  void provide_encoder_output(const float* states, size_t size);
  // The pending kProject request: the decoder's last hidden states [rows * d_model].
  const float* hidden(size_t* rows) const;
  // Answers it: logits [rows * vocab_size] = hidden W^T + b of the model's output projection.
  void provide_logits(const float* logits, size_t size);
  // Or answers it with each row's best candidates instead of full logits (a few numbers per row
  // instead of vocab_size): per row, 3 + 2 * candidates_per_row() floats: the row's max logit m,
  // log(sum(exp(logit - m))), the logit of EOS, then (logit, token id) pairs of the
  // candidates_per_row() largest logits, largest first (ties: lower id), leaving out <unk> when
  // the config says suppress_unk. Ids are exact in float32 (vocabularies < 2^24).
  void provide_candidates(const float* rows, size_t size);
  // 1 for greedy search, 2 x beam size for beam search.
  size_t candidates_per_row() const;
  // True when the pending kProject request may only be answered by compute_on_cpu(): the batch
  // is decoded with the model's lexical shortlist (TranslateOptions::shortlist), a projection onto
  // a few hundred rows of the vocabulary that only the engine holds; provide_logits() and
  // provide_candidates() are refused then.
  bool projects_on_cpu_only() const;
  // Answers the pending request with the engine's own backend.
  void compute_on_cpu();
  // Once next() said kDone: one Translation per input text, as translate() returns them.
  std::vector<Translation> results() const;
  // The sentences whose translation ended since the last call, each once, in the order they
  // ended (sentences of one batch end at different steps; batches go shortest first): a caller
  // can show each before the request is done. By the time next() says kDone every sentence has
  // ended; the results() it takes part in are the same. None with TranslateOptions::html (a
  // text's markup is placed once all its sentences are done).
  std::vector<CompletedSentence> take_completed();
  // How many of the request's sentences the translation memory answered (Translator::use_memory).
  size_t memory_hits() const;

  size_t d_model() const;
  size_t vocab_size() const;

 private:
  friend class Translator;
  class Impl;
  explicit TranslationSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tformer
