#include "decoding/packed_candidates.h"

#include <limits>

#include "kernels/ops.h"

namespace tformer {

void pack_candidates(const float* x, size_t n, const int* ids, int skip, int eos_column, int eos_id, size_t k,
                     float* row, int* top) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t found = ops::top_k_and_log_sum_exp(x, n, k, skip, top, &row[0], &row[1]);
  row[2] = eos_column >= 0 ? x[eos_column] : kNegInf;
  for (size_t i = 0; i < k; ++i) {
    row[3 + 2 * i] = i < found ? x[top[i]] : kNegInf;
    const int column = i < found ? top[i] : -1;
    row[3 + 2 * i + 1] = float(column < 0 ? eos_id : ids ? ids[column] : column);
  }
}

void unpack_candidates(const float* packed, size_t rows, size_t k, StepCandidates& out) {
  out.reset(rows, k);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = packed + r * packed_floats(k);
    const float m = row[0], log_sum = row[1];
    // The same log-probability as ops::log_softmax, from the row's max and log-sum-exp.
    auto log_prob = [&](float logit) { return (logit - m) - log_sum; };
    out.set_eos_log_prob(r, log_prob(row[2]));
    for (size_t i = 0; i < k; ++i) out.add(r, int(row[3 + 2 * i + 1]), log_prob(row[3 + 2 * i]));
  }
}

}  // namespace tformer
