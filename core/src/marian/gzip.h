// gzip (.gz copies of model files, as Firefox Translations ships them): zlib's inflate with the
// gzip wrapper, which checks the header, the CRC-32 and the length of each member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tformer::marian {

// The decompressed content. The output is allocated once, from the size the gzip trailer declares
// (a file of several members declares only its last one's: the output then grows, never past
// `limit`). Throws tformer::Error naming `what` when the data is not gzip, is truncated or
// corrupted, or decompresses to more than `limit` bytes, the most a `kind` file may hold.
std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, size_t limit, const std::string& what,
                            const std::string& kind);

}  // namespace tformer::marian
