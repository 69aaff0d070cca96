// The state machine of a step-wise translation (TranslationSession, tformer/translator.h): the
// segments and batches of one request, the batch being decoded, and the request that waits for
// an answer. Its phases:
//
//   kIdle --next()--> kEncodePending (the first batch), or kDone when there is nothing to translate
//   kEncodePending --provide_encoder_output() / compute_on_cpu()--> kEncodeAnswered
//   kEncodeAnswered --next(): the batch's search starts--> kProjectPending
//   kProjectPending --provide_logits() / provide_candidates() / compute_on_cpu()--> kProjectAnswered
//   kProjectAnswered --next(): the search takes its step--> kProjectPending, or, once the batch's
//       search is done (its sentences built into results), kEncodePending for the next batch, or
//       kDone after the last one (the results assembled)
//
// Every call that does not fit the phase throws a tformer::Error (kWrongState) saying what is
// pending and which calls fit; a rejected answer leaves the phase as it was.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decoding/search.h"
#include "tformer/translator.h"
#include "transformer/encoder.h"
#include "html/html.h"
#include "text/glossary.h"
#include "translation/loaded_model.h"
#include "translation/response.h"
#include "translation/segmenter.h"

namespace tformer {

class TranslationSession::Impl {
 public:
  using Need = TranslationSession::Need;

  // Validates the options, checks and segments every text and plans the batches; nothing is
  // computed yet. Throws tformer::Error on a bad option or text.
  Impl(std::shared_ptr<LoadedModel> model, const std::vector<std::string>& texts, const TranslateOptions& options);

  Need next();
  const EncodeRequest& encode_request() const;
  void provide_encoder_output(const float* states, size_t size);
  const float* hidden(size_t* rows) const;
  void provide_logits(const float* logits, size_t size);
  void provide_candidates(const float* rows, size_t size);
  size_t candidates_per_row() const;
  bool projects_on_cpu_only() const;
  void compute_on_cpu();
  std::vector<Translation> results() const;
  std::vector<CompletedSentence> take_completed();
  size_t memory_hits() const { return memory_hits_; }

  size_t d_model() const { return size_t(m_->config.d_model); }
  size_t vocab_size() const { return size_t(m_->config.vocab_size); }

 private:
  enum class Phase { kIdle, kEncodePending, kEncodeAnswered, kProjectPending, kProjectAnswered, kDone };
  // The session's calls, as its errors name them (tformer/error.h).
  using Call = tformer::Phase;

  void expect(Phase phase, Call call) const;
  static void check_values(Call call, const float* values, size_t size, size_t expected, const std::string& shape);
  void make_encode_request();
  void split_html(const std::vector<std::string>& texts);
  void assemble_html();
  // Builds the sentences the search let go of since the last step.
  void collect();
  void refuse_if_shortlisted(Call call) const;
  // The translation memory: the keys of segments [first, end) split from `text`; a segment's
  // result taken from it (false when it has none that fits).
  void name_for_memory(size_t first, const std::string& text);
  bool recall(size_t u);

  std::shared_ptr<LoadedModel> m_;
  TranslateOptions options_;
  std::vector<std::string> texts_;            // the input texts (not in HTML mode): the results' source texts
  std::vector<Segment> segments_;
  std::vector<std::vector<size_t>> batches_;  // indices into segments_
  std::vector<SentenceTranslation> done_;     // per segment
  std::vector<Translation> paragraphs_;
  std::vector<HtmlFragment> html_;            // options.html: each text's markup and blocks
  std::vector<TranslationBytes> target_bytes_;  // options.html: per segment, where its words came from
  std::vector<CompletedSentence> places_;     // per segment: its place in the results (no sentence)
  std::vector<CompletedSentence> completed_;  // ended, not yet taken by take_completed()
  size_t batch_ = 0;                          // the batch being encoded or decoded
  Phase phase_ = Phase::kIdle;
  EncodeRequest request_;
  std::optional<EncoderOutput> memory_;
  std::optional<Search> search_;
  const float* hidden_ = nullptr;  // the pending projection's input, owned by search_
  bool answered_with_candidates_ = false;
  std::vector<float> candidates_;  // the answer of provide_candidates()
  std::shared_ptr<TranslationMemory> translation_memory_;  // or none
  std::vector<std::string> keys_;  // per segment, with a memory: its key there
  size_t memory_hits_ = 0;
  std::optional<Glossary> glossary_;  // options.glossary, ready to match; none when it is empty
};

}  // namespace tformer
