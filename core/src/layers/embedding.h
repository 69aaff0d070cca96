// Token embedding table, looked up and scaled by sqrt(d_model) as in the paper.
#pragma once

#include <string>
#include <vector>

#include "model/model_file.h"

namespace tformer {

class Embedding {
 public:
  Embedding() = default;
  Embedding(const ModelFile& file, const std::string& name, size_t vocab, size_t d)
      : table_(file.floats(name, {int64_t(vocab), int64_t(d)})), vocab_(vocab), d_(d) {}

  // out[d] = table[id] * scale, or zeros for id < 0 (Marian's zero start vector).
  void lookup(int id, float scale, float* out) const {
    if (id < 0) {
      for (size_t i = 0; i < d_; ++i) out[i] = 0.f;
      return;
    }
    const float* row = &table_[size_t(id) * d_];
    for (size_t i = 0; i < d_; ++i) out[i] = row[i] * scale;
  }
  const float* data() const { return table_.data(); }
  size_t vocab() const { return vocab_; }

 private:
  std::vector<float> table_;
  size_t vocab_ = 0, d_ = 0;
};

}  // namespace tformer
