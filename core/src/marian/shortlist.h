// The lexical shortlist of Firefox Translations models (lex.*.s2t.bin: marian-dev's binary
// shortlist, src/data/shortlist.{h,cpp}): read and checked, so that a folder's shortlist is known
// to be sound and can be described. The engine does not use it yet (it computes every logit).
//
// Layout, little-endian: u64 magic 0xF11A48D5013417F5, u64 checksum (marian's hashMem over the
// u64 words after it), u64 firstNum, u64 bestNum, u64 wordToOffsetSize, u64 shortListsSize; then
// wordToOffset (u64 x wordToOffsetSize: source word -> start of its candidates, the last equal to
// shortListsSize) and shortLists (u32 target ids x shortListsSize, sorted per source word).
#pragma once

#include <string>

#include "tformer/marian.h"

namespace tformer::marian {

// Throws tformer::Error naming `what` for a file that is not a sound binary shortlist for
// vocabularies of these sizes. `checksum_ok` says whether the stored checksum matched.
MarianShortlist read_shortlist(const uint8_t* data, size_t size, const std::string& what, size_t source_vocab,
                               size_t target_vocab, bool& checksum_ok);

// Whether the bytes start with the binary shortlist's magic number.
bool is_binary_shortlist(const uint8_t* data, size_t size);

}  // namespace tformer::marian
