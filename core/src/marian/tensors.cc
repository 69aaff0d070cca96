#include "marian/tensors.h"

namespace tformer::marian {

Tensor f32_tensor(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t;
  t.dtype = "f32";
  t.shape = std::move(shape);
  t.f = std::move(values);
  return t;
}

Tensor bytes_tensor(const uint8_t* data, size_t size) {
  Tensor t;
  t.dtype = "u8";
  t.shape = {int64_t(size)};
  t.u.assign(data, data + size);
  return t;
}

Tensor bytes_tensor(const std::string& bytes) {
  return bytes_tensor(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

void Tensors::set(const std::string& name, Tensor t) {
  auto it = index_.find(name);
  if (it != index_.end()) {
    list_[it->second].second = std::move(t);
  } else {
    index_[name] = list_.size();
    list_.emplace_back(name, std::move(t));
  }
}

void Tensors::erase(const std::string& name) {
  auto it = index_.find(name);
  if (it == index_.end()) return;
  list_.erase(list_.begin() + long(it->second));
  index_.clear();
  for (size_t i = 0; i < list_.size(); ++i) index_[list_[i].first] = i;
}

std::vector<std::string> Tensors::names() const {
  std::vector<std::string> n;
  for (const auto& [k, v] : list_) n.push_back(k);
  return n;
}

}  // namespace tformer::marian
