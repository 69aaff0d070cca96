#include "marian/limits.h"

#include <utility>

#include "text/sentencepiece_check.h"

namespace tformer::marian {

size_t limit_of(FileKind kind) {
  switch (kind) {
    case FileKind::kModel: return size_t(1) << 31;             // a wasm32 heap holds no more
    case FileKind::kOptions: return size_t(256) << 10;         // real ones have a few KB
    case FileKind::kVocabularyTable: return size_t(8) << 20;   // 64k pieces take about 1.5 MB
    case FileKind::kSentencePiece: return kMaxSentencePieceModelBytes;
    case FileKind::kShortlist: return size_t(256) << 20;       // Firefox's take 5-30 MB
  }
  return 0;
}

const char* name_of(FileKind kind) {
  switch (kind) {
    case FileKind::kModel: return "model";
    case FileKind::kOptions: return "options YAML";
    case FileKind::kVocabularyTable: return "vocabulary table";
    case FileKind::kSentencePiece: return "SentencePiece model";
    case FileKind::kShortlist: return "lexical shortlist";
  }
  return "";
}

std::string size_text(uint64_t bytes) {
  for (auto [shift, unit] : {std::pair<int, const char*>{30, " GiB"}, {20, " MiB"}, {10, " KiB"}}) {
    if (bytes >= (uint64_t(1) << shift) && bytes % (uint64_t(1) << shift) == 0) return std::to_string(bytes >> shift) + unit;
  }
  return std::to_string(bytes) + " bytes";
}

}  // namespace tformer::marian
