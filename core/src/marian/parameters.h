// Marian's parameter names and layouts -> the engine's tensors, for an architecture.
#pragma once

#include <string>
#include <vector>

#include "marian/architecture.h"

namespace tformer::marian {

struct Parameter {
  std::string marian, tfm;
  // 'W': Marian's [in, out], the transposed Linear weight; 'b': [1, n] (or [n]) -> [n];
  // 'E': as it is ([V, d] embeddings and the [V, d] output matrix `_Wt`).
  char kind;
};

std::vector<Parameter> parameter_map(const Architecture& a);

// Old Marian models store the output matrix untransposed, [d, V], under this name.
constexpr const char* kLegacyOutput = "decoder_ff_logit_out_W";
constexpr const char* kOutput = "decoder_ff_logit_out_Wt";

}  // namespace tformer::marian
