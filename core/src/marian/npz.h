// NumPy's .npz (a zip of .npy arrays; Marian's and OPUS-MT's model.npz), read from memory with
// zlib's minizip (contrib/minizip; Debian's libminizip), which checks each entry's CRC-32.
#pragma once

#include <string>
#include <vector>

#include "marian/items.h"

namespace tformer::marian {

// The arrays in zip order, each named as numpy names it (the entry name without ".npy") and owning
// its decompressed bytes. Before anything is inflated, the zip directory is checked: at most
// kMaxItems entries, each no larger than deflate can make its own compressed bytes, their total
// at most `limit`, and no two entries' data overlapping (a zip bomb repeats one compressed body).
// Throws tformer::Error naming `what` and the entry at fault.
std::vector<MarianItem> read_npz(const uint8_t* data, size_t size, size_t limit, const std::string& what);

}  // namespace tformer::marian
