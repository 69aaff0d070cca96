#include "layers/attention.h"

#include <cassert>
#include <cmath>
#include <vector>

#include "kernels/ops.h"

namespace tformer {

MultiHeadAttention::MultiHeadAttention(Kernels& kernels, const ModelFile& file, const std::string& prefix,
                                       int d_model, int heads, Inputs inputs)
    : inputs_(inputs),
      o_(kernels, file, prefix + ".o", d_model, d_model),
      d_(d_model),
      heads_(heads),
      head_dim_(d_model / heads),
      scale_(static_cast<float>(1.0 / std::sqrt(double(d_model / heads)))) {
  if (inputs == Inputs::kShared) {
    qkv_ = Linear::stacked(kernels, file, {prefix + ".q", prefix + ".k", prefix + ".v"}, d_model, d_model);
  } else {
    q_ = Linear(kernels, file, prefix + ".q", d_model, d_model);
    kv_ = Linear::stacked(kernels, file, {prefix + ".k", prefix + ".v"}, d_model, d_model);
  }
}

MultiHeadAttention::Projections MultiHeadAttention::project(const float* query_in, const float* kv_in, size_t rows,
                                                            RawBuffer<float>& q_scratch,
                                                            RawBuffer<float>& kv_scratch) const {
  const size_t d = size_t(d_);
  if (shared_inputs()) {
    assert(kv_in == query_in);
    kv_scratch.ensure(rows * 3 * d);
    qkv_(query_in, rows, kv_scratch.data());
    return {kv_scratch.data(), 3 * d, kv_scratch.data() + d, 3 * d};
  }
  q_scratch.ensure(rows * d);
  kv_scratch.ensure(rows * 2 * d);
  q_(query_in, rows, q_scratch.data());
  kv_(kv_in, rows, kv_scratch.data());
  return {q_scratch.data(), d, kv_scratch.data(), 2 * d};
}

void MultiHeadAttention::attend(const float* q, const float* kv, size_t n, size_t stride, float* out,
                                float* weights, int weights_head) const {
  // Scores of all heads, [head][position]; per thread, as attention runs on the thread pool.
  thread_local std::vector<float> scores;
  const size_t heads = size_t(heads_), dh = size_t(head_dim_);
  scores.resize(heads * n);
  ops::attention_scores(q, kv, n, stride, heads, dh, scale_, scores.data());
  for (size_t h = 0; h < heads; ++h) ops::softmax_inplace(&scores[h * n], n);
  ops::attention_values(scores.data(), kv + d_, n, stride, heads, dh, out);
  if (weights && weights_head >= 0) {
    assert(weights_head < heads_);
    for (size_t t = 0; t < n; ++t) weights[t] += scores[size_t(weights_head) * n + t];
  } else if (weights) {
    for (size_t h = 0; h < heads; ++h)
      for (size_t t = 0; t < n; ++t) weights[t] += scores[h * n + t] / float(heads_);
  }
}

}  // namespace tformer
