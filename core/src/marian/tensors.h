// The engine's tensors as an import builds them (names as in docs/FORMAT.md), before they are
// written: f32 values, int8 values with their row scales (a tensor of their own), f16 values, or
// bytes (a tokenizer's model, the shortlist).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tformer::marian {

struct Tensor {
  std::string dtype;  // "f32", "i8", "f16", "u8"
  std::vector<int64_t> shape;
  std::vector<float> f;
  std::vector<int8_t> q;
  std::vector<uint16_t> h;
  std::vector<uint8_t> u;
  std::string scales;  // an i8 matrix: the name of its row scales
};

Tensor f32_tensor(std::vector<int64_t> shape, std::vector<float> values);
Tensor bytes_tensor(const uint8_t* data, size_t size);
Tensor bytes_tensor(const std::string& bytes);

// Tensors by name, in the order they were first set (the order they are written in).
class Tensors {
 public:
  bool has(const std::string& name) const { return index_.count(name) != 0; }
  Tensor& at(const std::string& name) { return list_[index_.at(name)].second; }
  void set(const std::string& name, Tensor t);
  void erase(const std::string& name);
  std::vector<std::string> names() const;
  std::vector<std::pair<std::string, Tensor>>& list() { return list_; }

 private:
  std::vector<std::pair<std::string, Tensor>> list_;
  std::map<std::string, size_t> index_;
};

}  // namespace tformer::marian
