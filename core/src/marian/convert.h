// The convert step of an import: Marian's items -> the engine's tensors (names, layouts, tying,
// vocabularies of different sizes padded to one). intgemm8 matrices stay int8 with their row
// scales (1/quantMult) where `keep_int8`, else become f32.
#pragma once

#include "marian/model.h"
#include "marian/tensors.h"
#include "marian/validate.h"

namespace tformer::marian {

struct Converted {
  Tensors tensors;
  int quantized = 0;  // int8 matrices kept as they were stored
  bool output_bias = false;  // the model has an output bias (its own, or the padding's -inf)
};

Converted convert(const MarianModel& m, const Plan& plan, bool keep_int8);

}  // namespace tformer::marian
