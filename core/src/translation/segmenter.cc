#include "translation/segmenter.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "tformer/error.h"
#include "text/sentence_splitter.h"
#include "text/tokenizer.h"
#include "util/utf8.h"

namespace tformer {

size_t Segmenter::max_piece_tokens(const TranslateOptions& options) const {
  const size_t specials = size_t(config_.source_bos) + size_t(config_.source_eos);
  // ModelConfig guarantees max_positions > specials; without a piece length of at least one
  // the cutting in split() would never end.
  size_t max_tokens = size_t(config_.max_positions) > specials ? size_t(config_.max_positions) - specials : 0;
  if (max_tokens < 1) throw Error(ErrorCode::kInvalidModel, Phase::kRequest, "the model's max_positions leaves no room for a source token");
  if (options.max_sentence_tokens > 0) max_tokens = std::min(max_tokens, size_t(options.max_sentence_tokens));
  return max_tokens;
}

void Segmenter::split(size_t p, const std::string& text, const TranslateOptions& options, std::vector<Segment>& out,
                      const std::vector<SentenceSpan>* sentences, const Glossary* glossary) const {
  require_valid_utf8(text, p);
  require_at_most_chars(text, options.max_input_chars, p);
  const ModelConfig& c = config_;
  const size_t max_tokens = max_piece_tokens(options);
  // Passthrough: characters the source vocabulary lacks (they would be <unk>), asked once each.
  std::unordered_map<char32_t, bool> unknown_chars;
  auto unknown = [&](char32_t ch) {
    auto [at, fresh] = unknown_chars.try_emplace(ch, false);
    if (fresh) {
      std::string utf8;
      if (ch < 0x80) utf8 = char(ch);
      else if (ch < 0x800) utf8 = {char(0xC0 | (ch >> 6)), char(0x80 | (ch & 0x3F))};
      else if (ch < 0x10000) utf8 = {char(0xE0 | (ch >> 12)), char(0x80 | ((ch >> 6) & 0x3F)), char(0x80 | (ch & 0x3F))};
      else utf8 = {char(0xF0 | (ch >> 18)), char(0x80 | ((ch >> 12) & 0x3F)), char(0x80 | ((ch >> 6) & 0x3F)), char(0x80 | (ch & 0x3F))};
      for (int id : source_.encode(utf8)) at->second = at->second || id == c.unk_id;
    }
    return at->second;
  };
  size_t line = 0, line_start = 0;
  while (line_start <= text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    const std::string_view line_text = std::string_view(text).substr(line_start, line_end - line_start);
    std::vector<SentenceSpan> spans;
    if (sentences && line_end == text.size() && line_start == 0) {
      spans = *sentences;
    } else if (options.split_sentences) {
      spans = split_sentences(line_text);
    } else {
      size_t b = line_text.find_first_not_of(" \t\r\f\v"), e = line_text.find_last_not_of(" \t\r\f\v");
      if (b != std::string_view::npos) spans.push_back({b, e + 1});
    }
    for (const SentenceSpan& s : spans) {
      const std::string sentence(line_text.substr(s.begin, s.end - s.begin));
      ProtectedSentence kept = options.passthrough ? protect(sentence, unknown) : ProtectedSentence{};
      Tokenizer::Encoded encoded = source_.encode_annotated(kept.spans.empty() ? sentence : kept.text);
      if (encoded.ids.size() > max_tokens && !kept.spans.empty()) {  // cut into pieces: translated as it is
        kept = ProtectedSentence{};
        encoded = source_.encode_annotated(sentence);
      }
      const std::vector<int>& ids = encoded.ids;
      if (ids.empty()) continue;  // nothing SentencePiece keeps (e.g. control characters only)
      for (size_t at = 0; at < ids.size(); at += max_tokens) {
        Segment u;
        u.paragraph = p;
        u.line = line;
        u.begin = line_start + s.begin;
        u.end = line_start + s.end;
        const size_t until = std::min(ids.size(), at + max_tokens);
        std::vector<int> piece(ids.begin() + long(at), ids.begin() + long(until));
        if (piece.size() == ids.size()) {
          u.text = sentence;
        } else {  // the bytes its tokens stand for, without the whitespace before the first
          size_t b = encoded.tokens[at].begin, e = encoded.tokens[until - 1].end;
          while (b < e && (sentence[b] == ' ' || sentence[b] == '\t')) ++b;
          u.text = sentence.substr(b, e - b);
          u.text_at = b;
        }
        if (c.source_bos) u.source.push_back(c.bos_id);
        u.source.insert(u.source.end(), piece.begin(), piece.end());
        if (c.source_eos) u.source.push_back(c.eos_id);
        u.source_tokens.assign(encoded.tokens.begin() + long(at), encoded.tokens.begin() + long(until));
        if (piece.size() == ids.size()) {
          u.kept = kept;
          if (glossary && !kept.verbatim) u.terms = glossary->find(kept.spans.empty() ? sentence : kept.text);
        }
        u.alignment = options.return_alignment;
        out.push_back(std::move(u));
      }
    }
    ++line;
    line_start = line_end + 1;
  }
}

}  // namespace tformer
