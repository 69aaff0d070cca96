// Simpler Simple Recurrent Unit, the decoder self-attention replacement of Bergamot's tiny models:
// f = sigmoid(x Wf + bf); c = f * c_prev + (1 - f) * (x W); h = relu(c).
#pragma once

#include <string>
#include <vector>

#include "layers/linear.h"

namespace tformer {

class Ssru {
 public:
  Ssru() = default;
  Ssru(Kernels& kernels, const ModelFile& file, const std::string& prefix, int d_model)
      : w_(kernels, file, prefix + ".w", d_model, d_model, /*bias=*/false),
        wf_(kernels, file, prefix + ".wf", d_model, d_model) {}

  // One time step for `rows` rows: x [rows, d] in, state [rows, d] updated, h [rows, d] out.
  // scratch: 2 * rows * d floats.
  void step(const float* x, size_t rows, float* state, float* h, std::vector<float>& scratch) const;

 private:
  Linear w_, wf_;
};

}  // namespace tformer
