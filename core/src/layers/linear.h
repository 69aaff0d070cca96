// A fully-connected layer y = x W^T + b whose weights live in the kernels' packed form.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "model/model_file.h"
#include "tformer/model_plan.h"

namespace tformer {

class Linear {
 public:
  Linear() = default;
  // Loads `<name>.weight` [out, in] and, when `bias`, `<name>.bias` [out]. An i8 weight stays
  // int8 (the kernels' int8 path); f32 and f16 ones run in f32. `relu`: y = max(0, x W^T + b).
  Linear(Kernels& kernels, const ModelFile& file, const std::string& name, size_t in, size_t out,
         bool bias = true, bool relu = false);
  // Several layers reading the same input, stacked into one operator (e.g. keys and values):
  // the output row holds each layer's outputs one after another.
  static Linear stacked(Kernels& kernels, const ModelFile& file, const std::vector<std::string>& names,
                        size_t in, size_t out_each);
  // From explicit weights, e.g. the output projection tied to an embedding table.
  Linear(Kernels& kernels, const float* w, const float* b, size_t in, size_t out);
  // From int8 weights [out, in] with per-row scales [out].
  Linear(Kernels& kernels, const int8_t* w, const float* scales, const float* b, size_t in, size_t out);

  void operator()(const float* x, size_t rows, float* y) const { kernels_->linear(*packed_, x, rows, y); }
  size_t in() const { return packed_->in(); }
  size_t out() const { return packed_->out(); }
  bool int8() const { return packed_->int8(); }
  // The tensors it was built from, for an external backend (ModelPlan). The constructors that take
  // a file record them; the ones that take explicit weights leave that to the caller.
  LinearPlan plan() const;
  void set_tensor_names(std::vector<std::string> weights, std::vector<std::string> biases) {
    weights_ = std::move(weights);
    biases_ = std::move(biases);
  }

 private:
  Kernels* kernels_ = nullptr;
  std::unique_ptr<PackedLinear> packed_;
  std::vector<std::string> weights_, biases_;  // tensor names, stacked in this order
};

}  // namespace tformer
