#include "layers/positional_encoding.h"

#include <cmath>

namespace tformer {

PositionalEncoding::PositionalEncoding(PositionalKind kind, int positions, int d)
    : table_(size_t(positions) * d), positions_(positions), d_(d) {
  // Computed in double and rounded once, like the PyTorch reference.
  const double log10000 = std::log(10000.0);
  for (int p = 0; p < positions; ++p) {
    float* row = &table_[size_t(p) * d];
    if (kind == PositionalKind::kInterleaved) {
      // The tutorial's: sin on even, cos on odd dimensions, frequency 10000^(-2i/d).
      for (int i = 0; i < d; i += 2) {
        const double angle = p * std::exp(-i * log10000 / d);
        row[i] = static_cast<float>(std::sin(angle));
        row[i + 1] = static_cast<float>(std::cos(angle));
      }
    } else {
      // Marian's: [sin | cos] halves with f_i = exp(-i ln(10000) / (d/2 - 1)).
      const int n = d / 2;
      for (int i = 0; i < n; ++i) {
        const double angle = p * std::exp(-i * log10000 / (n - 1));
        row[i] = static_cast<float>(std::sin(angle));
        row[n + i] = static_cast<float>(std::cos(angle));
      }
    }
  }
}

void PositionalEncoding::add(int position, float* x) const {
  const float* row = &table_[size_t(position) * d_];
  for (int i = 0; i < d_; ++i) x[i] += row[i];
}

}  // namespace tformer
