// PivotTranslator (tformer/pivot.h): two models one after the other, sentence by sentence, with the
// alignment composed through both.
#include "tformer/pivot.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tformer {
namespace {

constexpr const char* kEos = "</s>";

// A piece's characters once SentencePiece's word mark (U+2581) is left out: what the two
// tokenizations of the same text have in common.
size_t visible_chars(const std::string& piece) {
  if (piece == kEos) return 0;
  size_t n = 0;
  for (size_t i = 0; i < piece.size();) {
    const unsigned char c = static_cast<unsigned char>(piece[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (piece.compare(i, 3, "\xe2\x96\x81") != 0) ++n;
    i += len;
  }
  return n;
}

struct Spans {
  std::vector<double> start, length;
  double total = 0;
};

Spans spans_of(const std::vector<std::string>& pieces) {
  Spans s;
  for (const auto& p : pieces) {
    const double n = double(visible_chars(p));
    s.start.push_back(s.total);
    s.length.push_back(n);
    s.total += n;
  }
  return s;
}

// Where the paragraph's text puts each sentence: the separators between them (" " or line breaks)
// as the first step's text has them.
std::vector<std::string> separators(const Translation& t) {
  std::vector<std::string> seps;
  size_t at = 0;
  for (size_t i = 0; i < t.sentences.size(); ++i) {
    const std::string& s = t.sentences[i].hypotheses.at(0).text;
    const size_t found = t.text.find(s, at);
    if (i == 0) {
      seps.push_back("");
    } else if (found == std::string::npos) {
      seps.push_back(" ");
    } else {
      seps.push_back(t.text.substr(at, found - at));
    }
    if (found != std::string::npos) at = found + s.size();
  }
  return seps;
}

}  // namespace

std::vector<float> compose_alignments(const std::vector<float>& first, const std::vector<std::string>& first_target_pieces,
                                      size_t first_source_tokens, const std::vector<float>& second,
                                      const std::vector<std::string>& second_source_pieces, size_t second_target_tokens) {
  const size_t t1 = first_target_pieces.size(), s1 = first_source_tokens, s2 = second_source_pieces.size(),
               t2 = second_target_tokens;
  if (t1 == 0 || s1 == 0 || s2 == 0 || t2 == 0 || first.size() != t1 * s1 || second.size() != t2 * s2) return {};
  const Spans a = spans_of(first_target_pieces), b = spans_of(second_source_pieces);
  const double scale = b.total > 0 ? a.total / b.total : 0.0;
  // overlap [s2 x t1], rows summing to 1.
  std::vector<double> overlap(s2 * t1, 0.0);
  for (size_t j = 0; j < s2; ++j) {
    double* row = &overlap[j * t1];
    if (second_source_pieces[j] == kEos) {
      const auto eos = std::find(first_target_pieces.begin(), first_target_pieces.end(), kEos);
      row[eos != first_target_pieces.end() ? size_t(eos - first_target_pieces.begin()) : t1 - 1] = 1.0;
      continue;
    }
    const double from = b.start[j] * scale, to = (b.start[j] + b.length[j]) * scale;
    double sum = 0;
    for (size_t i = 0; i < t1; ++i) {
      const double o = std::min(to, a.start[i] + a.length[i]) - std::max(from, a.start[i]);
      if (o > 0) {
        row[i] = o;
        sum += o;
      }
    }
    if (sum > 0) {
      for (size_t i = 0; i < t1; ++i) row[i] /= sum;
    } else {
      // A piece without characters of its own (a lone word mark): the first-step piece at its place.
      size_t at = 0;
      while (at + 1 < t1 && a.start[at] + a.length[at] <= from && first_target_pieces[at + 1] != kEos) ++at;
      row[at] = 1.0;
    }
  }
  // [t2 x t1] = second x overlap, then [t2 x s1] = that x first.
  std::vector<double> mid(t2 * t1, 0.0);
  for (size_t r = 0; r < t2; ++r)
    for (size_t j = 0; j < s2; ++j) {
      const double w = second[r * s2 + j];
      if (w == 0) continue;
      for (size_t i = 0; i < t1; ++i) mid[r * t1 + i] += w * overlap[j * t1 + i];
    }
  std::vector<float> out(t2 * s1, 0.f);
  for (size_t r = 0; r < t2; ++r)
    for (size_t i = 0; i < t1; ++i) {
      const double w = mid[r * t1 + i];
      if (w == 0) continue;
      for (size_t c = 0; c < s1; ++c) out[r * s1 + c] += float(w * first[i * s1 + c]);
    }
  return out;
}

void PivotTranslator::continue_with_second(std::vector<Translation>& translations, const TranslateOptions& options) {
  TranslateOptions second = options;
  second.split_sentences = false;  // each first-step sentence is one sentence of the second
  second.max_input_chars = 0;      // the first step's output is no user input to bound
  if (options.html) {
    // The first step's HTML, its markup placed, goes through the second as HTML.
    second.split_sentences = options.split_sentences;
    std::vector<std::string> texts;
    for (const auto& t : translations) texts.push_back(t.text);
    std::vector<Translation> out = second_.translate(texts, second);
    for (size_t p = 0; p < out.size(); ++p) {
      Translation& t = translations[p];
      for (size_t i = 0; i < out[p].sentences.size(); ++i) {
        auto& s = out[p].sentences[i];
        if (out[p].sentences.size() != t.sentences.size()) {
          s.alignment.clear();  // the second model split the HTML's text otherwise: no sentence to compose with
          continue;
        }
        const auto& f = t.sentences[i];
        if (options.return_alignment)
          s.alignment = compose_alignments(f.alignment, f.target_pieces, f.source_tokens.size(), s.alignment,
                                           s.source_pieces, s.target_pieces.size());
        s.source = f.source;
        s.source_tokens = f.source_tokens;
        s.source_pieces = f.source_pieces;
      }
      t = std::move(out[p]);
    }
    return;
  }
  // Every sentence of every text in one request: the second model batches them as a direct
  // translation would.
  std::vector<std::string> texts;
  for (const auto& t : translations)
    for (const auto& s : t.sentences) texts.push_back(s.hypotheses.at(0).text);
  if (texts.empty()) return;
  std::vector<Translation> out = second_.translate(texts, second);
  size_t k = 0;
  for (Translation& t : translations) {
    const std::vector<std::string> seps = separators(t);
    Translation result;
    for (size_t i = 0; i < t.sentences.size(); ++i, ++k) {
      const SentenceTranslation& f = t.sentences[i];
      if (i) result.text += seps[i];
      result.text += out[k].text;
      // One sentence in, one out, unless the second model cut a long one into pieces.
      for (auto& s : out[k].sentences) {
        if (options.return_alignment && out[k].sentences.size() == 1)
          s.alignment = compose_alignments(f.alignment, f.target_pieces, f.source_tokens.size(), s.alignment,
                                           s.source_pieces, s.target_pieces.size());
        else
          s.alignment.clear();
        s.source = f.source;
        s.source_tokens = f.source_tokens;
        s.source_pieces = f.source_pieces;
        result.sentences.push_back(std::move(s));
      }
    }
    t = std::move(result);
  }
}

std::vector<Translation> PivotTranslator::translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
  TranslateOptions first = options;
  first.nbest = 1;  // the second step's n best are the pair's
  first.confidence = false;  // and so is its confidence: the words are the second step's
  std::vector<Translation> out = first_.translate(texts, first);
  continue_with_second(out, options);
  return out;
}

}  // namespace tformer
