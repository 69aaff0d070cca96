// The cast step of an import: every matrix stored in the requested precision ("f32", "f16" or
// "int8"; "keep" leaves the converted tensors as they are). int8 is symmetric per output row:
// w ~ q * scale[row], scale = max|row| / 127, round half to even (as models/tformer/tfm.py's
// quantisation and the engine's reader expect).
#pragma once

#include <string>

#include "marian/tensors.h"

namespace tformer::marian {

void cast(Tensors& tensors, const std::string& weights);

}  // namespace tformer::marian
