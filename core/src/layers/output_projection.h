// The output projection, logits = x E^T + b: over the whole target vocabulary, or over chosen rows
// of it (a lexical shortlist's words), built per batch. Each logit of a subset is the number the
// whole projection gives for that word: the rows are the same weights, with the same bias and
// (int8) scales, and each output is computed on its own.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/linear.h"

namespace tformer {

class OutputProjection {
 public:
  OutputProjection() = default;
  // `rows` [vocab, d] stay owned by the caller (the target embedding when tied) and must outlive
  // this object, as must `kernels`; `bias` [vocab] or empty.
  OutputProjection(Kernels& kernels, const float* rows, std::vector<float> bias, size_t d, size_t vocab);
  OutputProjection(Kernels& kernels, const int8_t* rows, const float* scales, std::vector<float> bias, size_t d,
                   size_t vocab);

  const Linear& full() const { return full_; }
  Linear& full() { return full_; }
  void operator()(const float* x, size_t rows, float* y) const { full_(x, rows, y); }
  // The projection onto the given target ids (each < vocab), in their order.
  Linear subset(const std::vector<int>& ids) const;
  // The rows are no longer readable (the caller frees them): subset() is refused from now on.
  void forget_rows() { rows_ = nullptr, int8_rows_ = nullptr, scales_ = nullptr; }
  size_t vocab() const { return vocab_; }

 private:
  Kernels* kernels_ = nullptr;
  Linear full_;
  const float* rows_ = nullptr;
  const int8_t* int8_rows_ = nullptr;
  const float* scales_ = nullptr;
  std::vector<float> bias_;
  size_t d_ = 0, vocab_ = 0;
};

}  // namespace tformer
