// A sentence as SentencePiece reports the pieces that spell it: each piece stands for its bytes,
// its "▁" for the space before it (none before the first piece). For the tests of the stages that
// place words by the tokens' bytes (passthrough, the glossary).
#pragma once

#include <string>
#include <vector>

#include "text/annotated_text.h"

namespace tformer::testing {

inline AnnotatedSentence spelled(const std::vector<std::string>& pieces) {
  const std::string mark = "\xE2\x96\x81";
  AnnotatedSentence out;
  for (std::string piece : pieces) {
    for (size_t k; (k = piece.find(mark)) != std::string::npos;) piece.replace(k, mark.size(), " ");
    if (out.tokens.empty() && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    out.tokens.push_back({out.text.size(), out.text.size() + piece.size()});
    out.text += piece;
  }
  return out;
}

}  // namespace tformer::testing
