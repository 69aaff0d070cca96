// Translation through a pivot language, as Firefox translates a pair without a direct model:
// source -> English with one model, English -> target with another, sentence by sentence.
//
//   tformer::Translator fr_en(...), en_de(...);
//   tformer::PivotTranslator fr_de(fr_en, en_de);
//   auto out = fr_de.translate({"Bonjour tout le monde."}, options);
//
// Each sentence the first model translates goes through the second on its own (split_sentences off
// there), so a sentence's translation is the second model's translation of the first model's
// sentence: the same as running the two models one after the other, one sentence per line. The
// results read as a direct translation's: sentences keep the original source sentence and tokens;
// nbest and scores are the second step's; with return_alignment the alignment is composed through
// both steps ([target tokens x source tokens], rows summing to 1: the second step's alignment times
// the overlap of its source pieces with the first step's target pieces times the first step's
// alignment). With html the first step's HTML goes into the second, so markup is carried through
// both.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tformer/translator.h"

namespace tformer {

class PivotSession;

class PivotTranslator {
 public:
  // Both translators must outlive this object.
  PivotTranslator(Translator& first, Translator& second) : first_(first), second_(second) {}

  // The same as begin() driven with compute_on_cpu() to its end.
  std::vector<Translation> translate(const std::vector<std::string>& texts, const TranslateOptions& options = {});

  // A translation through both models step by step (PivotSession). With `stream`, each sentence
  // goes through the second model as soon as the first one ended it, so that it can be handed out
  // then; without, the second model takes all of the first's sentences in one request (batched
  // as a direct translation is), which is faster when nobody waits for the first sentence.
  std::unique_ptr<PivotSession> begin(const std::vector<std::string>& texts, const TranslateOptions& options = {},
                                      bool stream = false);

  Translator& first() { return first_; }
  Translator& second() { return second_; }

 private:
  Translator& first_;
  Translator& second_;
};

// A translation through the pivot driven step by step, as a TranslationSession is for one model:
// next() does the engine's own work until a request of either model needs answering, step() says
// whose it is (0: the first model's, 1: the second's) and pending() is that model's session, to
// answer it there (on the engine's CPU, or a backend that holds that model's weights).
//
//   auto s = pivot.begin(texts, options, /*stream=*/true);
//   for (auto need = s->next(); need != Need::kDone; need = s->next()) {
//     for (auto& c : s->take_completed()) show(c);   // each sentence once both steps ended it
//     s->pending().compute_on_cpu();                  // or answer it on step()'s backend
//   }
//   auto translations = s->results();                 // what PivotTranslator::translate gives
//
// take_completed() hands out sentences in input order (each once both steps ended it; a sentence
// the second model cut into pieces comes as those pieces), numbered as results() has them. None
// with TranslateOptions::html. Both translators must outlive the session.
class PivotSession {
 public:
  using Need = TranslationSession::Need;

  PivotSession(Translator& first, Translator& second, const std::vector<std::string>& texts, const TranslateOptions& options,
               bool stream);
  ~PivotSession();
  PivotSession(const PivotSession&) = delete;
  PivotSession& operator=(const PivotSession&) = delete;

  Need next();
  // Which model's request is pending: 0 (the first, source -> pivot) or 1 (the second).
  int step() const { return second_session_ ? 1 : 0; }
  // The session whose request is pending (the first model's or the second's).
  TranslationSession& pending();
  std::vector<CompletedSentence> take_completed();
  // Once next() said kDone: one Translation per input text.
  std::vector<Translation> results() const;

 private:
  // A first-step sentence and, once the second model translated it, its translation (pieces).
  struct Through {
    CompletedSentence first;
    std::vector<CompletedSentence> second;
    bool done = false;
  };
  void start_second();
  void finish_second();
  void start_html();
  void finish_html();
  void hand_out();

  Translator& second_;
  TranslateOptions options_, second_options_;
  bool stream_;
  size_t paragraphs_;
  std::unique_ptr<TranslationSession> first_session_, second_session_;
  std::optional<Need> first_need_;     // the first model's request, pending while the second model works
  bool first_done_ = false;
  std::vector<size_t> waiting_;        // first-step segments not yet given to the second model
  std::vector<size_t> group_;          // the segments the second model translates now, in its texts' order
  std::map<size_t, Through> through_;  // by first-step segment
  std::vector<Translation> html_;      // with html: the first step's results, then the pair's
  size_t next_out_ = 0;                // the first-step segment to hand out next
  size_t out_segments_ = 0;            // sentences handed out so far
  std::vector<size_t> out_index_;      // per text: its sentences handed out so far
  std::vector<CompletedSentence> completed_;
};

// [T2 x S1] = second [T2 x S2] x overlap [S2 x T1] x first [T1 x S1]; the overlap row of a second-step
// source piece is the share of its characters in each first-step target piece (end of sentence to end
// of sentence). Empty when a shape does not fit its pieces.
std::vector<float> compose_alignments(const std::vector<float>& first, const std::vector<std::string>& first_target_pieces,
                                      size_t first_source_tokens, const std::vector<float>& second,
                                      const std::vector<std::string>& second_source_pieces, size_t second_target_tokens);

}  // namespace tformer
