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

#include <memory>
#include <string>
#include <vector>

#include "tformer/translator.h"

namespace tformer {

class PivotTranslator {
 public:
  // Both translators must outlive this object.
  PivotTranslator(Translator& first, Translator& second) : first_(first), second_(second) {}

  std::vector<Translation> translate(const std::vector<std::string>& texts, const TranslateOptions& options = {});

  // The second step of translate(), for a caller that ran the first itself (a stream handing out
  // sentences as the first model finishes them): the first step's translations through the second
  // model, in place.
  void continue_with_second(std::vector<Translation>& translations, const TranslateOptions& options);

  Translator& first() { return first_; }
  Translator& second() { return second_; }

 private:
  Translator& first_;
  Translator& second_;
};

// [T2 x S1] = second [T2 x S2] x overlap [S2 x T1] x first [T1 x S1]; the overlap row of a second-step
// source piece is the share of its characters in each first-step target piece (end of sentence to end
// of sentence). Empty when a shape does not fit its pieces.
std::vector<float> compose_alignments(const std::vector<float>& first, const std::vector<std::string>& first_target_pieces,
                                      size_t first_source_tokens, const std::vector<float>& second,
                                      const std::vector<std::string>& second_source_pieces, size_t second_target_tokens);

}  // namespace tformer
