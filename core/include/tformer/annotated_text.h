// A text with the bytes of each of its sentences and of each of their tokens (Bergamot's
// AnnotatedText): what a translation's source and target are, for code that needs to know which
// bytes a token or a sentence stands for (word alignment drawn on the text, placing markup). The
// ranges come from SentencePiece's piece offsets, not from spelling the pieces back out: a piece
// is normalised ("…" becomes three "." pieces, "ﬁ" becomes "fi"), carries SentencePiece's "▁" for
// the whitespace before it, and may be a byte or "<unk>", so it does not say where it stood.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tformer {

// Bytes [begin, end) of a text.
struct ByteRange {
  size_t begin = 0, end = 0;
  size_t size() const { return end - begin; }
  bool operator==(const ByteRange& o) const { return begin == o.begin && end == o.end; }
  bool operator!=(const ByteRange& o) const { return !(*this == o); }
};

// The text and, for each sentence in order, its bytes and the bytes of each of its tokens.
// - A sentence's range holds no whitespace at either end; what lies between sentences (spaces,
//   line breaks) belongs to none.
// - A token's range lies within its sentence's and holds the whitespace before the token inside
//   the sentence (" Wetter" for "▁Wetter"). Tokens follow each other without overlap. A token may
//   stand for no bytes: all but the last of the tokens that one character became, and BOS and
//   EOS (empty at the sentence's start and end), so that there is one range per token the model
//   saw or wrote and the alignment's rows and columns can be read as ranges.
// - Bytes of a sentence outside all its tokens are whitespace SentencePiece dropped, or what
//   passthrough took out of the source and put back into the translation as it was.
struct AnnotatedText {
  std::string text;
  std::vector<ByteRange> sentences;
  std::vector<std::vector<ByteRange>> tokens;  // per sentence

  size_t num_sentences() const { return sentences.size(); }
  std::string_view sentence(size_t s) const { return view(sentences.at(s)); }
  std::string_view token(size_t s, size_t t) const { return view(tokens.at(s).at(t)); }
  std::string_view view(const ByteRange& r) const { return std::string_view(text).substr(r.begin, r.size()); }

  // Appends `gap` (what separates it from the sentence before) and a sentence whose tokens'
  // ranges are given in bytes of `sentence`.
  void append_sentence(std::string_view gap, std::string_view sentence, const std::vector<ByteRange>& sentence_tokens) {
    text += gap;
    record_sentence({text.size(), text.size() + sentence.size()}, sentence_tokens);
    text += sentence;
  }
  // Appends `gap` and another annotated text, its sentences and tokens moved to where it lands.
  void append_text(std::string_view gap, const AnnotatedText& other) {
    text += gap;
    const size_t at = text.size();
    text += other.text;
    for (size_t s = 0; s < other.sentences.size(); ++s) {
      const ByteRange& r = other.sentences[s];
      sentences.push_back({at + r.begin, at + r.end});
      std::vector<ByteRange>& shifted = tokens.emplace_back();
      for (const ByteRange& t : other.tokens[s]) shifted.push_back({at + t.begin, at + t.end});
    }
  }
  // Records a sentence already in `text` at `range`, its tokens' ranges given in bytes of the sentence.
  void record_sentence(ByteRange range, const std::vector<ByteRange>& sentence_tokens) {
    sentences.push_back(range);
    std::vector<ByteRange>& shifted = tokens.emplace_back();
    shifted.reserve(sentence_tokens.size());
    for (const ByteRange& r : sentence_tokens) shifted.push_back({range.begin + r.begin, range.begin + r.end});
  }
};

}  // namespace tformer
