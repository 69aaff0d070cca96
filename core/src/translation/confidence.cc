#include "translation/confidence.h"

#include <cmath>

#include "tformer/error.h"

namespace tformer {
namespace {

// SentencePiece's meta symbol for the space before a word, U+2581 "▁".
constexpr char kWordStart[] = "\xE2\x96\x81";

bool starts_word(const std::string& piece) { return piece.compare(0, sizeof kWordStart - 1, kWordStart) == 0; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

SentenceConfidence sentence_confidence(const std::vector<std::string>& pieces, const std::vector<float>& log_probs,
                                       const TranslationBytes& bytes, const std::string& translation) {
  SentenceConfidence out;
  out.log_probs = log_probs;
  if (log_probs.empty()) return out;
  double sum = 0;
  for (float lp : log_probs) sum += lp;
  out.score = float(sum / double(log_probs.size()));
  if (bytes.verbatim) return out;

  // The text tokens (EOS has no range) are the first model.tokens.size() of the hypothesis.
  const std::vector<ByteRange>& tokens = bytes.model.tokens;
  if (tokens.size() > log_probs.size() || pieces.size() != log_probs.size())
    throw Error("word confidence: " + std::to_string(tokens.size()) + " text tokens, " +
                std::to_string(pieces.size()) + " pieces and " + std::to_string(log_probs.size()) +
                " log-probabilities for one hypothesis");
  for (size_t first = 0; first < tokens.size();) {
    size_t last = first + 1;
    while (last < tokens.size() && !starts_word(pieces[last])) ++last;
    const size_t b = tokens[first].begin, e = tokens[last - 1].end;
    WordConfidence w;
    w.first_token = first;
    w.tokens = last - first;
    double log_probability = 0;
    for (size_t t = first; t < last; ++t) log_probability += double(log_probs[t]);
    w.confidence = float(std::exp(log_probability));
    // The model's bytes [b, e) in the translation: a span passthrough put back at b lies before
    // the word, one put back inside it is inside its range.
    w.begin = bytes.in_translation(b);
    w.end = e > b ? bytes.in_translation(e - 1) + 1 : w.begin;
    if (w.end > translation.size()) w.end = translation.size();
    while (w.begin < w.end && is_space(translation[w.begin])) ++w.begin;
    while (w.end > w.begin && is_space(translation[w.end - 1])) --w.end;
    // A word of spaces only (a "▁" token at the end) stands for no text.
    if (w.begin < w.end) out.words.push_back(w);
    first = last;
  }
  return out;
}

}  // namespace tformer
