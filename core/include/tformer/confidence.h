// Word confidence (TranslateOptions::confidence): how sure the decoder was of each word of a
// sentence's best translation, and of the sentence as a whole, from the log-probabilities the
// search gave the tokens it chose (after the decoding rules: the shortlist, the repetition guard).
//
// A word is a run of target tokens that SentencePiece joins without a space: a token whose piece
// begins with "▁" (or the sentence's first token) starts one; the tokens after it up to the next
// such token belong to it ("▁Hallo" "," is the word "Hallo,"). EOS is no word's.
//
// Measures (docs/BENCHMARKS.md, "Word confidence", compares them with others on FLORES):
// - a word's confidence is the probability the model gave the word: the product of its tokens'
//   probabilities (each given the ones before), in (0, 1]. Of the word measures compared (its
//   tokens' mean, minimum, first, product), it tells best which words are missing from the
//   reference translation;
// - a sentence's score is the mean log-probability of its tokens, EOS included (Bergamot's
//   "log-prob average" quality estimate; 0 is certain, lower is less sure).
// Through a pivot (tformer/pivot.h) they are the second model's, whose words the translation has.
#pragma once

#include <cstddef>
#include <vector>

namespace tformer {

struct WordConfidence {
  // The word's bytes in the sentence's translation (SentenceTranslation::hypotheses[0].text),
  // without the space before it. With passthrough, a span put back inside a word is inside its
  // range; a span put back between words belongs to none.
  size_t begin = 0, end = 0;
  size_t first_token = 0, tokens = 0;  // its tokens: SentenceConfidence::log_probs[first_token, +tokens)
  float confidence = 0.f;              // the product of its tokens' probabilities
};

struct SentenceConfidence {
  float score = 0.f;             // mean log-probability of the sentence's tokens, EOS included
  std::vector<float> log_probs;  // per target token of the best hypothesis, EOS included
  // In order. None when the sentence was copied as it was (passthrough's verbatim sentences: the
  // model's tokens are not in the translation).
  std::vector<WordConfidence> words;
};

}  // namespace tformer
