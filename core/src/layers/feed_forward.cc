#include "layers/feed_forward.h"

#include "kernels/ops.h"

namespace tformer {

FeedForward::FeedForward(Backend& backend, const ModelFile& file, const std::string& prefix, int d_model,
                         int ffn_dim, Activation activation)
    : w1_(backend, file, prefix + ".w1", d_model, ffn_dim),
      w2_(backend, file, prefix + ".w2", ffn_dim, d_model),
      activation_(activation) {}

void FeedForward::operator()(const float* x, size_t rows, float* y, std::vector<float>& hidden) const {
  hidden.resize(rows * w1_.out());
  w1_(x, rows, hidden.data());
  if (activation_ == Activation::kRelu)
    ops::relu_inplace(hidden.data(), hidden.size());
  else
    ops::swish_inplace(hidden.data(), hidden.size());
  w2_(hidden.data(), rows, y);
}

}  // namespace tformer
