// Text with the byte ranges of its tokens, as SentencePiece reports them (its piece offsets;
// Bergamot's AnnotatedText keeps the same for a whole text). Code that needs to know which bytes
// a token stands for reads them here instead of spelling the pieces back out: a piece's text is
// normalised ("…" becomes three "." pieces, "ﬁ" becomes "fi"), carries SentencePiece's "▁" for
// the whitespace before it, and may be a byte or "<unk>", so it does not say where it stood.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tformer {

struct ByteRange {
  size_t begin = 0, end = 0;
  size_t size() const { return end - begin; }
  bool operator==(const ByteRange& o) const { return begin == o.begin && end == o.end; }
};

// A sentence and, for each of its tokens in order, the bytes of `text` it stands for. A token's
// range holds the whitespace before it (" Wetter" for "▁Wetter"), and may be empty where one
// character became several tokens (all but the last of them). The ranges follow each other
// without overlap; bytes outside all of them (whitespace at either end) were dropped.
struct AnnotatedSentence {
  std::string text;
  std::vector<ByteRange> tokens;
};

}  // namespace tformer
