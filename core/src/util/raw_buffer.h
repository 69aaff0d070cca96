#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace tformer {

// An array whose growth does not initialize its elements, for buffers that the code always writes
// before it reads: the decoder's key/value caches and the search's logits. std::vector::resize
// value-initializes every new element; for a beam's self-attention cache, sized for the longest
// target of the batch, that meant writing (and faulting in) tens of MB per batch that the search
// never reads. Untouched parts of a large RawBuffer are never made resident.
template <typename T>
class RawBuffer {
 public:
  // Room for n elements. Growing drops the old contents; shrinking keeps the allocation.
  void ensure(size_t n) {
    if (n <= capacity_) return;
    data_.reset(new T[n]);  // default-initialized: no writes
    capacity_ = n;
  }
  void swap(RawBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
  }

  bool empty() const { return capacity_ == 0; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  size_t capacity_ = 0;
};

}  // namespace tformer
