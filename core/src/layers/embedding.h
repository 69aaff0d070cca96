// Token embedding table, looked up and scaled by sqrt(d_model) as in the paper. An i8 table stays
// int8: a lookup dequantizes just the row it reads.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model_file.h"

namespace tformer {

class Embedding {
 public:
  Embedding() = default;
  Embedding(const ModelFile& file, const std::string& name, size_t vocab, size_t d)
      : name_(name), vocab_(vocab), d_(d), scale_(static_cast<float>(std::sqrt(double(d)))) {
    const std::vector<int64_t> shape = {int64_t(vocab), int64_t(d)};
    if (file.is_int8(name)) {
      ModelFile::Int8Rows rows = file.int8_rows(name, shape);
      int8_table_.assign(rows.values, rows.values + vocab * d);
      scales_ = std::move(rows.scales);
    } else {
      table_ = file.floats(name, shape);
    }
  }

  // out[d] = table[id] * sqrt(d), or zeros for id < 0 (Marian's zero start vector).
  void lookup(int id, float* out) const {
    const float scale = scale_;
    if (id < 0) {
      for (size_t i = 0; i < d_; ++i) out[i] = 0.f;
      return;
    }
    if (int8()) {
      const int8_t* row = &int8_table_[size_t(id) * d_];
      const float row_scale = scales_[size_t(id)];
      for (size_t i = 0; i < d_; ++i) out[i] = (float(row[i]) * row_scale) * scale;
      return;
    }
    const float* row = &table_[size_t(id) * d_];
    for (size_t i = 0; i < d_; ++i) out[i] = row[i] * scale;
  }
  bool int8() const { return !int8_table_.empty(); }
  const float* data() const { return table_.data(); }              // f32 tables
  const int8_t* int8_data() const { return int8_table_.data(); }   // int8 tables
  const float* scales() const { return scales_.data(); }           // int8 tables: one per row
  size_t vocab() const { return vocab_; }
  const std::string& name() const { return name_; }  // the tensor it was read from
  float scale() const { return scale_; }  // sqrt(d_model): what the WebGPU encoder multiplies rows by

 private:
  std::vector<float> table_;
  std::vector<int8_t> int8_table_;
  std::vector<float> scales_;
  std::string name_;
  size_t vocab_ = 0, d_ = 0;
  float scale_ = 1.f;
};

}  // namespace tformer
