// The source token each target token attends to most, from a sentence's alignment (the alignment
// head's weights, one row of `stride` source positions per target token, this sentence's source
// tokens from `offset`). Passthrough puts a lost number back and the glossary places a term by it.
#pragma once

#include <cstddef>
#include <vector>

namespace tformer {

// For each of the T target tokens the index (0..S-1) of its most-attended source token; `none` for
// every token where the alignment does not cover T rows of S tokens.
inline std::vector<size_t> attended_source_tokens(const std::vector<float>& alignment, size_t stride, size_t offset,
                                                  size_t S, size_t T, size_t none) {
  std::vector<size_t> points(T, none);
  if (T == 0 || S == 0 || offset + S > stride || alignment.size() < T * stride) return points;
  for (size_t t = 0; t < T; ++t) {
    const float* row = alignment.data() + t * stride + offset;
    size_t best = 0;
    for (size_t s = 1; s < S; ++s)
      if (row[s] > row[best]) best = s;
    points[t] = best;
  }
  return points;
}

}  // namespace tformer
