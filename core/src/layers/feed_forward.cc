#include "layers/feed_forward.h"

#include "kernels/ops.h"

namespace tformer {

FeedForward::FeedForward(Kernels& kernels, const ModelFile& file, const std::string& prefix, int d_model,
                         int ffn_dim, Activation activation)
    // relu runs inside w1's product (the kernels' output clamp); swish is a pass of its own.
    : w1_(kernels, file, prefix + ".w1", d_model, ffn_dim, /*bias=*/true, /*relu=*/activation == Activation::kRelu),
      w2_(kernels, file, prefix + ".w2", ffn_dim, d_model),
      activation_(activation) {}

void FeedForward::operator()(const float* x, size_t rows, float* y, RawBuffer<float>& hidden) const {
  const size_t n = rows * w1_.out();
  hidden.ensure(n);
  w1_(x, rows, hidden.data());
  if (activation_ == Activation::kSwish) ops::swish_inplace(hidden.data(), n);
  w2_(hidden.data(), rows, y);
}

}  // namespace tformer
