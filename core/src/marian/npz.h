// NumPy's .npz (a zip of .npy arrays; Marian's and OPUS-MT's model.npz), read from memory with
// zlib's minizip (contrib/minizip; Debian's libminizip), which checks each entry's CRC-32.
#pragma once

#include <string>
#include <vector>

#include "marian/items.h"

namespace tformer::marian {

// The arrays in zip order, each named as numpy names it (the entry name without ".npy") and owning
// its decompressed bytes. Throws tformer::Error naming `what` and the entry at fault.
std::vector<MarianItem> read_npz(const uint8_t* data, size_t size, const std::string& what);

}  // namespace tformer::marian
