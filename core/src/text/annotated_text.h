// A sentence with the byte ranges of its tokens, as the tokenizer reports them (SentencePiece's
// piece offsets): the unit the segmenter, passthrough and the response builder work on. The
// whole request's texts are tformer/annotated_text.h's AnnotatedText, which says why the ranges
// are read from SentencePiece rather than from the pieces' spelling.
#pragma once

#include <string>
#include <vector>

#include "tformer/annotated_text.h"

namespace tformer {

// A sentence and, for each of its tokens in order, the bytes of `text` it stands for. A token's
// range holds the whitespace before it (" Wetter" for "▁Wetter"), and may be empty where one
// character became several tokens (all but the last of them). The ranges follow each other
// without overlap; bytes outside all of them (whitespace at either end) were dropped.
struct AnnotatedSentence {
  std::string text;
  std::vector<ByteRange> tokens;
};

}  // namespace tformer
