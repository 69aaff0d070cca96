// NumPy's .npy format (the arrays inside a Marian .npz): a strict reader of the header
// ({'descr': '<f4', 'fortran_order': False, 'shape': (a, b), }) for the little-endian integer and
// float types Marian stores. No Debian package has a C++ .npy reader; the format is small
// (numpy/lib/format.py documents it).
#pragma once

#include <string>

#include "marian/items.h"

namespace tformer::marian {

// Fills `item` (type, shape, data pointing into `data`) from one .npy file's bytes. Throws
// tformer::Error naming `what` (the .npz and the entry) and what is wrong.
void parse_npy(const uint8_t* data, size_t size, const std::string& what, MarianItem& item);

}  // namespace tformer::marian
