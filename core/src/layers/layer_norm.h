// Layer normalisation with learned scale and bias.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "model/model_file.h"
#include "tformer/model_plan.h"

namespace tformer {

class LayerNorm {
 public:
  LayerNorm() = default;
  LayerNorm(const ModelFile& file, const std::string& name, size_t d, float eps)
      : gamma_(file.floats(name + ".weight", {int64_t(d)})),
        beta_(file.floats(name + ".bias", {int64_t(d)})),
        eps_(eps),
        name_(name) {}
  void operator()(const float* x, size_t rows, float* y) const {
    ops::layer_norm(x, rows, gamma_.size(), gamma_.data(), beta_.data(), eps_, y);
  }
  // Its tensors and eps, for an external backend; empty names for a norm the model lacks.
  NormPlan plan() const { return name_.empty() ? NormPlan{} : NormPlan{name_ + ".weight", name_ + ".bias", eps_}; }
  // Post-norm's "add & norm", x = norm(x + residual), with blocks of rows on the kernels' threads:
  // between two parallel matrix products it would otherwise be serial work (the same arithmetic
  // per row as add_inplace followed by operator()).
  void add_and_normalize(Kernels& kernels, float* x, const float* residual, size_t rows) const {
    const size_t d = gamma_.size();
    constexpr size_t kBlock = 16;  // rows per task: enough work to be worth a thread's wake-up
    kernels.parallel_for((rows + kBlock - 1) / kBlock, [&](size_t block) {
      const size_t begin = block * kBlock, n = std::min(kBlock, rows - begin);
      ops::add_inplace(x + begin * d, residual + begin * d, n * d);
      ops::layer_norm(x + begin * d, n, d, gamma_.data(), beta_.data(), eps_, x + begin * d);
    });
  }

 private:
  std::vector<float> gamma_, beta_;
  float eps_ = 1e-5f;
  std::string name_;
};

}  // namespace tformer
