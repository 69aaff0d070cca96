// How much an import reads: each kind of file has its own size limit (after decompression), room
// for any real model and small for what is text, so that a crafted file cannot make the importer
// allocate much (a YAML document, parsed, takes a multiple of its text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tformer::marian {

enum class FileKind { kModel, kOptions, kVocabularyTable, kSentencePiece, kShortlist };

size_t limit_of(FileKind kind);
const char* name_of(FileKind kind);  // "model", "options YAML", ...

// A size for messages: "256 KiB", "2 GiB", "1234 bytes".
std::string size_text(uint64_t bytes);

}  // namespace tformer::marian
