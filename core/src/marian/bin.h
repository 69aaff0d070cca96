// Marian's binary model format (.bin, version 1; marian-dev src/common/binary.cpp), little-endian:
//   u64 version (1); u64 N; N headers {u64 name bytes incl. NUL, u64 type, u64 ndims, u64 data
//   bytes}; N NUL-terminated names; all shapes as int32; u64 padding length P and P zero bytes (the
//   data then starts 256-aligned); each item's data, padded to a multiple of 256 (the padding
//   counts in its data bytes). intgemm data is the integer matrix followed by its float32
//   quantisation multiplier.
#pragma once

#include <string>
#include <vector>

#include "marian/items.h"

namespace tformer::marian {

// Items in file order; they point into `data`, which must outlive them. Throws tformer::Error
// naming `what` (the file) and the part at fault.
std::vector<MarianItem> parse_bin(const uint8_t* data, size_t size, const std::string& what);

}  // namespace tformer::marian
