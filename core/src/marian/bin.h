// Marian's binary model format (.bin, version 1; marian-dev src/common/binary.cpp), read and
// checked as models/tformer/marian_io.py reads it (the layout is described there).
#pragma once

#include <string>
#include <vector>

#include "marian/items.h"

namespace tformer::marian {

// Items in file order; they point into `data`, which must outlive them. Throws tformer::Error
// naming `what` (the file) and the part at fault.
std::vector<MarianItem> parse_bin(const uint8_t* data, size_t size, const std::string& what);

}  // namespace tformer::marian
