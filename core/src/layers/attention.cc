#include "layers/attention.h"

#include <cmath>

#include "kernels/ops.h"

namespace tformer {

MultiHeadAttention::MultiHeadAttention(Backend& backend, const ModelFile& file, const std::string& prefix,
                                       int d_model, int heads)
    : q_(backend, file, prefix + ".q", d_model, d_model),
      kv_(Linear::stacked(backend, file, {prefix + ".k", prefix + ".v"}, d_model, d_model)),
      o_(backend, file, prefix + ".o", d_model, d_model),
      d_(d_model),
      heads_(heads),
      head_dim_(d_model / heads),
      scale_(static_cast<float>(1.0 / std::sqrt(double(d_model / heads)))) {}

void MultiHeadAttention::attend(const float* q, const float* kv, size_t n, size_t stride, float* out,
                                float* scores, float* weights) const {
  const size_t dh = size_t(head_dim_);
  for (int h = 0; h < heads_; ++h) {
    const float* qh = q + h * dh;
    const float* kh = kv + h * dh;
    const float* vh = kv + d_ + h * dh;
    for (size_t t = 0; t < n; ++t) scores[t] = ops::dot(qh, kh + t * stride, dh) * scale_;
    ops::softmax_inplace(scores, n);
    float* oh = out + h * dh;
    for (size_t i = 0; i < dh; ++i) oh[i] = 0.f;
    for (size_t t = 0; t < n; ++t) ops::axpy(scores[t], vh + t * stride, oh, dh);
    if (weights)
      for (size_t t = 0; t < n; ++t) weights[t] += scores[t] / float(heads_);
  }
}

}  // namespace tformer
