#include "marian/items.h"

namespace tformer::marian {

int64_t MarianItem::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string MarianItem::shape_string() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

size_t type_size(const std::string& type) {
  if (type == "int8" || type == "uint8" || type == "intgemm8") return 1;
  if (type == "int16" || type == "uint16" || type == "float16" || type == "intgemm16") return 2;
  if (type == "int32" || type == "uint32" || type == "float32") return 4;
  if (type == "int64" || type == "uint64" || type == "float64") return 8;
  return 0;
}

uint64_t needed_bytes(const std::string& type, const std::vector<int64_t>& shape) {
  // Saturates instead of wrapping: a crafted shape must not look small.
  constexpr uint64_t kMax = ~uint64_t(0) / 16;
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && n > kMax / uint64_t(d))) return kTooLarge;
    n *= uint64_t(d);
  }
  const uint64_t bytes = n * type_size(type);
  return (type == "intgemm8" || type == "intgemm16") ? bytes + 4 : bytes;
}

std::string needs_text(uint64_t need) {
  return need == kTooLarge ? "is larger than any file" : "needs " + std::to_string(need) + " bytes";
}

std::string item_text(const MarianItem& item) {
  size_t n = 0;
  while (n < item.size && item.data[n] != 0) ++n;
  return std::string(reinterpret_cast<const char*>(item.data), n);
}

}  // namespace tformer::marian
