#include "layers/output_projection.h"

#include <cstring>
#include <string>

#include "tformer/error.h"

namespace tformer {

OutputProjection::OutputProjection(Kernels& kernels, const float* rows, std::vector<float> bias, size_t d,
                                   size_t vocab)
    : kernels_(&kernels),
      full_(kernels, rows, bias.empty() ? nullptr : bias.data(), d, vocab),
      rows_(rows),
      bias_(std::move(bias)),
      d_(d),
      vocab_(vocab) {}

OutputProjection::OutputProjection(Kernels& kernels, const int8_t* rows, const float* scales, std::vector<float> bias,
                                   size_t d, size_t vocab)
    : kernels_(&kernels),
      full_(kernels, rows, scales, bias.empty() ? nullptr : bias.data(), d, vocab),
      int8_rows_(rows),
      scales_(scales),
      bias_(std::move(bias)),
      d_(d),
      vocab_(vocab) {}

Linear OutputProjection::subset(const std::vector<int>& ids) const {
  if (ids.empty()) throw Error("output projection: an empty subset of the vocabulary");
  if (!rows_ && !int8_rows_) throw Error("output projection: its rows were not kept, so it has no subsets");
  const size_t n = ids.size();
  std::vector<float> bias;
  if (!bias_.empty()) bias.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || size_t(ids[i]) >= vocab_)
      throw Error("output projection: id " + std::to_string(ids[i]) + " outside the vocabulary of " +
                  std::to_string(vocab_));
    if (!bias.empty()) bias[i] = bias_[size_t(ids[i])];
  }
  const float* b = bias.empty() ? nullptr : bias.data();
  if (int8_rows_) {
    std::vector<int8_t> w(n * d_);
    std::vector<float> scales(n);
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(&w[i * d_], int8_rows_ + size_t(ids[i]) * d_, d_);
      scales[i] = scales_[size_t(ids[i])];
    }
    return Linear(*kernels_, w.data(), scales.data(), b, d_, n);
  }
  std::vector<float> w(n * d_);
  for (size_t i = 0; i < n; ++i) std::memcpy(&w[i * d_], rows_ + size_t(ids[i]) * d_, d_ * sizeof(float));
  return Linear(*kernels_, w.data(), b, d_, n);
}

}  // namespace tformer
