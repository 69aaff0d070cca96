#pragma once

#include <cstddef>
#include <vector>

#include "util/raw_buffer.h"

namespace tformer {

// Row i of `rows` (old_rows rows of `stride` floats, the first `used` of each meaningful) becomes
// old row parents[i], for i < n = parents.size() <= old_rows, in place. A beam step keeps many
// rows where they are (parents[i] == i) and moves the others, so copying every row to a second
// buffer, as a plain gather does, mostly copied rows onto themselves. A row is overwritten only
// once no other row still has to read its old contents; rows that read each other in a cycle go
// through `stash` (grown as needed). Each moved row costs one copy, plus one per cycle.
void gather_rows_in_place(float* rows, size_t old_rows, size_t stride, size_t used, const std::vector<int>& parents,
                          RawBuffer<float>& stash);

}  // namespace tformer
