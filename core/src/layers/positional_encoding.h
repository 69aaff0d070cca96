// Sinusoidal positional encodings, computed (never stored in the model file).
#pragma once

#include <vector>

#include "model/config.h"

namespace tformer {

class PositionalEncoding {
 public:
  PositionalEncoding() = default;
  PositionalEncoding(PositionalKind kind, int positions, int d_model);
  // Adds the encoding of `position` to x[d_model].
  void add(int position, float* x) const;
  int positions() const { return positions_; }
  const std::vector<float>& table() const { return table_; }  // [positions, d_model]

 private:
  std::vector<float> table_;
  int positions_ = 0, d_ = 0;
};

}  // namespace tformer
