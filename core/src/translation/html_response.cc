#include "translation/html_response.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tformer {
namespace {

constexpr size_t kNone = size_t(-1);

using Words = std::vector<std::pair<size_t, size_t>>;

// A word without the punctuation around it.
std::string core(std::string_view w) {
  while (!w.empty() && std::strchr("([{\"'", w.front())) w.remove_prefix(1);
  while (!w.empty() && std::strchr(".,;:!?)]}\"'", w.back())) w.remove_suffix(1);
  return std::string(w);
}

// The word of `words` that holds byte `at`, or kNone.
size_t word_at(const Words& words, size_t at) {
  auto w = std::upper_bound(words.begin(), words.end(), at, [](size_t x, const std::pair<size_t, size_t>& r) { return x < r.second; });
  return w != words.end() && w->first <= at ? size_t(w - words.begin()) : kNone;
}

// For each token of `text`, the byte where the word it belongs to begins, or kNone: a token that
// stands for the whitespace before it (or the first one) begins a word, the tokens after it up
// to the next such one continue it ("▁Kat", "zen", "." are one word).
std::vector<size_t> word_starts(std::string_view text, const std::vector<ByteRange>& tokens) {
  std::vector<size_t> out;
  size_t start = kNone;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const ByteRange& r = tokens[i];
    if (i == 0 || (r.begin < r.end && text[r.begin] == ' ')) {
      start = r.begin;
      while (start < text.size() && text[start] == ' ') ++start;
      if (start == text.size()) start = kNone;
    }
    out.push_back(start);
  }
  return out;
}

// For each token of `text`, the byte where its own text begins, or kNone: a token that stands for
// the whitespace before it begins at the next byte that is not a space; an empty token (a byte of
// a character SentencePiece split) goes with the token before it.
std::vector<size_t> token_starts(std::string_view text, const std::vector<ByteRange>& tokens) {
  std::vector<size_t> out;
  size_t start = kNone;
  for (const ByteRange& r : tokens) {
    if (r.begin < r.end || start == kNone) {
      start = r.begin;
      while (start < text.size() && text[start] == ' ') ++start;
      if (start >= text.size()) start = kNone;
    }
    out.push_back(start);
  }
  return out;
}

// The word alignment [target words x source words] of one sentence from its token alignment:
// each token's weights go to the word its bytes are part of: on the source side the words
// html_source_words cuts at the elements' edges, each source token placed by its own first byte
// (the "." token of "See." is the word "." when a link ends before it).
std::vector<float> word_alignment(const SentenceTranslation& s, const ModelConfig& config, const HtmlBlock& block,
                                  const std::string& model_text, const Segment& segment, const TranslationBytes& bytes,
                                  const std::string& target) {
  const size_t rows = s.hypotheses.at(0).tokens.size(), cols = s.source_tokens.size();
  if (s.alignment.size() != rows * cols || cols == 0) return {};
  const size_t length = segment.end - segment.begin;
  const Words source_words = html_source_words(block, segment.begin, segment.end);
  const Words target_words = html_words(target);
  if (source_words.empty() || target_words.empty() || html_words(std::string_view(model_text).substr(segment.begin, length)).empty())
    return {};
  // Source tokens -> source words: through the bytes of the sentence the model was given (the
  // block's bytes, or, with passthrough's spans taken out, the cleaned sentence's).
  const ProtectedSentence& kept = segment.kept;
  const bool cleaned = !kept.spans.empty();
  const std::string_view given = cleaned ? std::string_view(kept.text) : std::string_view(model_text).substr(segment.begin, length);
  std::vector<size_t> columns, source_word;  // source columns of tokens (not BOS/EOS), and their words
  const std::vector<size_t> source_starts = token_starts(given, segment.source_tokens);
  for (size_t c = 0, token = 0; c < cols; ++c) {
    const int id = s.source_tokens[c];
    if ((config.source_bos && c == 0 && id == config.bos_id) || (config.source_eos && c + 1 == cols && id == config.eos_id))
      continue;
    columns.push_back(c);
    size_t at = token < source_starts.size() ? source_starts[token] : kNone;
    ++token;
    if (at != kNone && cleaned) at = kept.origin.at(at);
    source_word.push_back(at == kNone ? kNone : word_at(source_words, segment.begin + at));
  }
  // Target tokens -> target words: through the bytes of the model's translation, moved by what
  // passthrough put back (a verbatim copy holds none of the model's words).
  // A word's punctuation tokens ("dogs" "." of "dogs.") attend to the source's punctuation, which
  // lies outside the elements ("<b>Hunde</b>."): the word is aligned by its other tokens.
  std::vector<size_t> target_rows, target_word;
  std::vector<bool> punctuation;  // per target row kept: a token without a letter or digit
  const std::vector<size_t> target_starts = word_starts(bytes.model.text, bytes.model.tokens);
  for (size_t r = 0, token = 0; r < rows; ++r) {
    if (s.hypotheses[0].tokens[r] == config.eos_id) continue;
    target_rows.push_back(r);
    const bool known = token < target_starts.size() && !bytes.verbatim;
    const size_t at = known ? target_starts[token] : kNone;
    bool bare = false;
    if (known && token < bytes.model.tokens.size()) {
      const ByteRange& range = bytes.model.tokens[token];
      const std::string_view text = std::string_view(bytes.model.text).substr(range.begin, range.end - range.begin);
      bare = std::none_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80 || std::isalnum(static_cast<unsigned char>(c)); });
    }
    ++token;
    target_word.push_back(at == kNone ? kNone : word_at(target_words, bytes.in_translation(at)));
    punctuation.push_back(bare);
  }
  const size_t ns = source_words.size(), nt = target_words.size();
  std::vector<bool> has_letters(nt, false);
  for (size_t i = 0; i < target_rows.size(); ++i)
    if (target_word[i] != kNone && !punctuation[i]) has_letters[target_word[i]] = true;
  std::vector<float> words(nt * ns, 0.f);
  std::vector<bool> written(nt, false);
  for (size_t i = 0; i < target_rows.size(); ++i) {
    const size_t t = target_word[i];
    if (t == kNone) continue;
    written[t] = true;
    if (punctuation[i] && has_letters[t]) continue;
    for (size_t j = 0; j < columns.size(); ++j)
      if (source_word[j] != kNone) words[t * ns + source_word[j]] += s.alignment[target_rows[i] * cols + columns[j]];
  }
  // A target word the model did not write (passthrough put it back) is aligned to the source
  // word it came from.
  for (size_t t = 0; t < nt; ++t) {
    const auto [b, e] = target_words[t];
    if (written[t] || core(std::string_view(target).substr(b, e - b)).empty()) continue;
    for (const PutBack& p : bytes.put_back) {
      if (p.text.end <= b || p.text.begin >= e) continue;
      const size_t from = p.from + (b > p.text.begin ? b - p.text.begin : 0);
      const size_t w = word_at(source_words, segment.begin + from);
      if (w != kNone) words[t * ns + w] = 1.f;
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
                             const std::vector<std::vector<HtmlSegment>>& segments, std::vector<Translation>& blocks,
                             bool keep_alignment) {
  Translation out;
  std::vector<std::string> rendered;
  for (size_t b = 0; b < fragment.blocks.size(); ++b) {
    const HtmlBlock& block = fragment.blocks[b];
    const std::string model_text = html_model_text(block.text);
    std::vector<HtmlSentence> sentences;
    std::vector<SentenceTranslation>& done = blocks[b].sentences;
    for (size_t i = 0; i < done.size(); ++i) {
      const Segment& u = *segments[b][i].segment;
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
      h.alignment = word_alignment(done[i], config, block, model_text, u, *segments[b][i].bytes, target);
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
