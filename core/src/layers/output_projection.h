// The output projection, logits = x E^T + b: over the whole target vocabulary, or over chosen rows
// of it (a lexical shortlist's words), built per batch (ShortlistProjection). A subset's rows are
// the same weights, with the same bias and (int8) scales, so each of its logits is the number the
// whole projection gives for that word: exactly with int8 and the reference kernels, and within
// f32 rounding with XNNPACK's f32 kernels, which may sum in another order for another output width.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/linear.h"
#include "util/raw_buffer.h"

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
  Kernels& kernels() const { return *kernels_; }
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

// The output projection of a batch whose sentences each score their own target ids (their lexical
// shortlists): one product onto the union of the batch's ids, then each row's logits of its own
// sentence's ids, so that a sentence's numbers do not depend on the sentences batched with it
// (whose ids widen the union).
class ShortlistProjection {
 public:
  // `ids`: per sentence its ids, ascending (throws tformer::Error otherwise). `output` must
  // outlive this object.
  ShortlistProjection(const OutputProjection& output, const std::vector<std::vector<int>>& ids);

  // The row stride of the logits: the longest list's length.
  size_t width() const { return width_; }
  // Logits [rows, width()] of hidden states x [rows, d]: row r holds the logits of sentence
  // row_sentence[r]'s ids, in their order (the rest of the row is left as it was).
  void operator()(const float* x, size_t rows, const std::vector<int>& row_sentence, float* logits);

 private:
  Kernels* kernels_;
  std::vector<int> union_;                  // every sentence's ids, ascending, once each
  std::vector<std::vector<int>> columns_;  // per sentence: where each of its ids lies in union_
  size_t width_ = 0;
  Linear union_projection_;
  RawBuffer<float> union_logits_;  // [rows, union size]
};

}  // namespace tformer
