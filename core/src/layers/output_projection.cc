#include "layers/output_projection.h"

#include <algorithm>
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

ShortlistProjection::ShortlistProjection(const OutputProjection& output, const std::vector<std::vector<int>>& ids)
    : kernels_(&output.kernels()) {
  for (const std::vector<int>& list : ids) {
    if (list.empty() || !std::is_sorted(list.begin(), list.end()) || list.front() < 0 ||
        size_t(list.back()) >= output.vocab())
      throw Error("output projection: a shortlist must be ascending target ids");
    union_.insert(union_.end(), list.begin(), list.end());
    width_ = std::max(width_, list.size());
  }
  std::sort(union_.begin(), union_.end());
  union_.erase(std::unique(union_.begin(), union_.end()), union_.end());
  for (const std::vector<int>& list : ids) {
    std::vector<int>& cols = columns_.emplace_back(list.size());
    for (size_t i = 0; i < list.size(); ++i)
      cols[i] = int(std::lower_bound(union_.begin(), union_.end(), list[i]) - union_.begin());
  }
  union_projection_ = output.subset(union_);
}

void ShortlistProjection::operator()(const float* x, size_t rows, const std::vector<int>& row_sentence,
                                     float* logits) {
  const size_t U = union_.size();
  union_logits_.ensure(rows * U);
  union_projection_(x, rows, union_logits_.data());
  // Rows are independent: on the layers' thread pool.
  kernels_->parallel_for(rows, [&](size_t r) {
    const std::vector<int>& cols = columns_[size_t(row_sentence[r])];
    const float* from = &union_logits_[r * U];
    float* to = logits + r * width_;
    for (size_t i = 0; i < cols.size(); ++i) to[i] = from[size_t(cols[i])];
  });
}

}  // namespace tformer
