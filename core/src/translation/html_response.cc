#include "translation/html_response.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tformer {
namespace {

constexpr size_t kNone = size_t(-1);

// The words the model's pieces spell: a piece that starts with SentencePiece's space mark "▁"
// starts a word; its text is its pieces without the mark.
struct PieceWords {
  std::vector<size_t> of_piece;   // the word of each piece
  std::vector<std::string> text;  // each word's text
};

PieceWords piece_words(const std::vector<std::string>& pieces) {
  static const std::string kMark = "\xE2\x96\x81";
  PieceWords w;
  for (size_t k = 0; k < pieces.size(); ++k) {
    const bool starts = pieces[k].rfind(kMark, 0) == 0;
    if (k == 0 || starts) w.text.emplace_back();
    w.of_piece.push_back(w.text.size() - 1);
    std::string piece = pieces[k];
    for (size_t at = piece.find(kMark); at != std::string::npos; at = piece.find(kMark, at)) piece.erase(at, kMark.size());
    w.text.back() += piece;
  }
  return w;
}

// A word without the punctuation around it: passthrough puts a span back next to it
// ("down." + "anna@example.org" -> "down anna@example.org.").
std::string core(std::string_view w) {
  while (!w.empty() && std::strchr("([{\"'", w.front())) w.remove_prefix(1);
  while (!w.empty() && std::strchr(".,;:!?)]}\"'", w.back())) w.remove_suffix(1);
  return std::string(w);
}

// For each of the words `a`, the index of the word of `b` it is: the same count of words are the
// same words in order (normalization may have changed their spelling); otherwise words equal but
// for punctuation are matched in order (their longest common subsequence), the others get kNone.
// Passthrough takes spans out of the model's source and puts them into its translation: this
// finds the words both sides share.
std::vector<size_t> match_words(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<size_t> match(a.size(), kNone);
  if (a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) match[i] = i;
    return match;
  }
  const size_t n = a.size(), m = b.size();
  std::vector<std::string> ca, cb;
  for (const std::string& w : a) ca.push_back(core(w));
  for (const std::string& w : b) cb.push_back(core(w));
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);  // lcs[i][j]: of a[i..] and b[j..]
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i * (m + 1) + j] = ca[i] == cb[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1
                                          : std::max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (ca[i] == cb[j]) {
      match[i++] = j++;
    } else if (lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return match;
}

std::vector<std::string> texts(std::string_view text, const std::vector<std::pair<size_t, size_t>>& words, size_t offset) {
  std::vector<std::string> out;
  for (const auto& [b, e] : words) out.emplace_back(text.substr(b - offset, e - b));
  return out;
}

// The word alignment [target words x source words] of one sentence from its token alignment.
std::vector<float> word_alignment(const SentenceTranslation& s, const ModelConfig& config, const std::string& block_text,
                                  const std::string& model_text, const Segment& segment, const std::string& target) {
  const size_t rows = s.hypotheses.at(0).tokens.size(), cols = s.source_tokens.size();
  if (s.alignment.size() != rows * cols || cols == 0) return {};
  const size_t length = segment.end - segment.begin;
  const std::string_view sentence = std::string_view(block_text).substr(segment.begin, length);
  const std::string_view model_sentence = std::string_view(model_text).substr(segment.begin, length);
  const auto source_words = html_words(sentence, segment.begin);
  const auto model_words = html_words(model_sentence, segment.begin);
  const auto target_words = html_words(target);
  if (source_words.empty() || target_words.empty() || model_words.empty()) return {};
  // Model words (U+00A0 split them) -> the source word holding their first byte.
  std::vector<size_t> model_to_source(model_words.size(), 0);
  for (size_t m = 0, w = 0; m < model_words.size(); ++m) {
    while (w + 1 < source_words.size() && source_words[w].second <= model_words[m].first) ++w;
    model_to_source[m] = w;
  }
  std::vector<size_t> columns;  // source columns of pieces (not BOS/EOS)
  std::vector<std::string> source_pieces;
  for (size_t c = 0; c < cols; ++c) {
    const int id = s.source_tokens[c];
    if ((config.source_bos && c == 0 && id == config.bos_id) || (config.source_eos && c + 1 == cols && id == config.eos_id))
      continue;
    columns.push_back(c);
    source_pieces.push_back(s.source_pieces.at(c));
  }
  std::vector<size_t> target_rows;
  std::vector<std::string> target_pieces;
  for (size_t r = 0; r < rows; ++r) {
    if (s.hypotheses[0].tokens[r] == config.eos_id) continue;
    target_rows.push_back(r);
    target_pieces.push_back(s.target_pieces.at(r));
  }
  const PieceWords sp = piece_words(source_pieces), tp = piece_words(target_pieces);
  const std::vector<std::string> model_texts = texts(model_sentence, model_words, segment.begin);
  const std::vector<std::string> target_texts = texts(target, target_words, 0);
  const std::vector<size_t> source_match = match_words(sp.text, model_texts);
  const std::vector<size_t> target_match = match_words(tp.text, target_texts);
  const size_t ns = source_words.size(), nt = target_words.size();
  std::vector<float> words(nt * ns, 0.f);
  for (size_t i = 0; i < target_rows.size(); ++i) {
    const size_t t = target_match[tp.of_piece[i]];
    if (t == kNone) continue;
    for (size_t j = 0; j < columns.size(); ++j) {
      const size_t m = source_match[sp.of_piece[j]];
      if (m != kNone) words[t * ns + model_to_source[m]] += s.alignment[target_rows[i] * cols + columns[j]];
    }
  }
  // A target word the model did not write (passthrough put it back) is aligned to the source
  // word it is, when there is one.
  std::vector<bool> written(nt, false);
  for (size_t t : target_match)
    if (t != kNone) written[t] = true;
  const std::vector<std::string> source_texts = texts(sentence, source_words, segment.begin);
  for (size_t t = 0; t < nt; ++t) {
    if (written[t] || core(target_texts[t]).empty()) continue;
    for (size_t w = 0; w < ns; ++w)
      if (core(source_texts[w]) == core(target_texts[t])) {
        words[t * ns + w] = 1.f;
        break;
      }
  }
  return words;
}

}  // namespace

std::string html_model_text(const std::string& block_text) {
  std::string text = block_text;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '\t' || text[i] == '\f') text[i] = ' ';
    if (text.compare(i, 2, "\xC2\xA0") == 0) text[i] = text[i + 1] = ' ';
  }
  return text;
}

std::vector<SentenceSpan> html_sentences(const HtmlBlock& block, const std::string& model_text) {
  std::string seen;             // the model text with the untranslated elements' text
  std::vector<size_t> to_text;  // for each byte of `seen`, and its end: the byte of model_text
  std::vector<size_t> starts;   // where each element's text begins in `seen`: it may start a sentence
  size_t at = 0;
  auto take = [&](std::string_view piece, size_t where) {  // where: npos for model text
    for (size_t i = 0; i < piece.size(); ++i) to_text.push_back(where == std::string::npos ? at + i : where);
    seen += piece;
  };
  for (const HtmlBlock::Atom& a : block.atoms) {
    if (a.text.empty() || a.at > model_text.size()) continue;
    take(std::string_view(model_text).substr(at, a.at - at), std::string::npos);
    at = a.at;
    starts.push_back(seen.size());
    take(html_model_text(a.text), a.at);
  }
  take(std::string_view(model_text).substr(at), std::string::npos);
  to_text.push_back(model_text.size());
  std::vector<SentenceSpan> out;
  for (const SentenceSpan& s : split_sentences(seen, starts)) {
    // A sentence that begins or ends inside an element's text begins or ends where the element stands.
    size_t b = to_text[s.begin], e = to_text[s.end];
    while (b < e && model_text[b] == ' ') ++b;
    while (e > b && model_text[e - 1] == ' ') --e;
    if (b < e && (out.empty() || b >= out.back().end)) out.push_back({b, e});
  }
  return out;
}

Translation html_translation(const HtmlFragment& fragment, const ModelConfig& config,
                             const std::vector<std::vector<const Segment*>>& segments, std::vector<Translation>& blocks,
                             bool keep_alignment) {
  Translation out;
  std::vector<std::string> rendered;
  for (size_t b = 0; b < fragment.blocks.size(); ++b) {
    const HtmlBlock& block = fragment.blocks[b];
    const std::string model_text = html_model_text(block.text);
    std::vector<HtmlSentence> sentences;
    std::vector<SentenceTranslation>& done = blocks[b].sentences;
    for (size_t i = 0; i < done.size(); ++i) {
      const Segment& u = *segments[b][i];
      const std::string& target = done[i].hypotheses.at(0).text;
      if (!sentences.empty() && sentences.back().begin == u.begin) {  // a piece of a cut sentence
        sentences.back().target += " " + target;
        sentences.back().alignment.clear();  // by relative place
        continue;
      }
      HtmlSentence h;
      h.begin = u.begin;
      h.end = u.end;
      h.target = target;
      h.alignment = word_alignment(done[i], config, block.text, model_text, u, target);
      sentences.push_back(std::move(h));
    }
    rendered.push_back(render_block(block, sentences));
    for (SentenceTranslation& s : done) {
      if (!keep_alignment) s.alignment.clear();
      out.sentences.push_back(std::move(s));
    }
  }
  out.text = render_fragment(fragment, rendered);
  return out;
}

}  // namespace tformer
