// Layer normalisation with learned scale and bias.
#pragma once

#include <string>
#include <vector>

#include "kernels/ops.h"
#include "model/model_file.h"

namespace tformer {

class LayerNorm {
 public:
  LayerNorm() = default;
  LayerNorm(const ModelFile& file, const std::string& name, size_t d, float eps)
      : gamma_(file.floats(name + ".weight", {int64_t(d)})),
        beta_(file.floats(name + ".bias", {int64_t(d)})),
        eps_(eps) {}
  void operator()(const float* x, size_t rows, float* y) const {
    ops::layer_norm(x, rows, gamma_.size(), gamma_.data(), beta_.data(), eps_, y);
  }

 private:
  std::vector<float> gamma_, beta_;
  float eps_ = 1e-5f;
};

}  // namespace tformer
