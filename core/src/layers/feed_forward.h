// Position-wise feed-forward block: w2(activation(w1 x)), activation relu or swish.
#pragma once

#include <string>
#include <vector>

#include "layers/linear.h"
#include "model/config.h"
#include "util/raw_buffer.h"

namespace tformer {

class FeedForward {
 public:
  FeedForward() = default;
  FeedForward(Kernels& kernels, const ModelFile& file, const std::string& prefix, int d_model, int ffn_dim,
              Activation activation);
  // x, y: [rows, d_model]; hidden: scratch, grown to rows * ffn_dim floats (never read before written).
  void operator()(const float* x, size_t rows, float* y, RawBuffer<float>& hidden) const;
  const Linear& w1() const { return w1_; }
  const Linear& w2() const { return w2_; }
  Activation activation() const { return activation_; }

 private:
  Linear w1_, w2_;
  Activation activation_ = Activation::kRelu;
};

}  // namespace tformer
