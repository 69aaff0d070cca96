// One named tensor of a Marian model file (.bin or .npz), as read: its Marian type, shape and
// bytes. The bytes stay where they were read (the caller's file buffer, or `owned` for data
// decompressed from an .npz), so a 70 MB model is not copied to be converted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tformer::marian {

// Marian's type names (marian-dev src/common/types.h). intgemm8 / intgemm16: the integer matrix
// followed by its float32 quantisation multiplier.
struct MarianItem {
  std::string name;
  std::string type;             // "float32", "int8", "intgemm8", ...
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;  // the item's bytes without any .bin padding
  size_t size = 0;
  std::vector<uint8_t> owned;     // holds `data` when the item owns it

  int64_t elements() const;
  bool is_intgemm() const { return type == "intgemm8" || type == "intgemm16"; }
  std::string shape_string() const;  // "[4, 8]"
};

// Bytes per element of a plain type; 0 for an unknown name. intgemm types: their integer size.
size_t type_size(const std::string& type);
// Bytes an item of this type and shape must hold (intgemm: the integers plus 4); kTooLarge when
// that is beyond any file.
uint64_t needed_bytes(const std::string& type, const std::vector<int64_t>& shape);
constexpr uint64_t kTooLarge = ~uint64_t(0);
// "needs N bytes" for messages, or "is larger than any file" for kTooLarge.
std::string needs_text(uint64_t need);

// The `special:model.yml` item's text: its bytes up to the first NUL.
std::string item_text(const MarianItem& item);

constexpr const char* kModelYml = "special:model.yml";

// More items than any Marian model has (a transformer of 12 + 12 layers has about 600): a file
// that claims more is refused before anything is allocated for them.
constexpr uint64_t kMaxItems = 1 << 16;

}  // namespace tformer::marian
