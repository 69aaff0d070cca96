// Little-endian numbers read from byte buffers (model files, Marian's binary formats) whatever the
// host's byte order, without alignment assumptions.
#pragma once

#include <cstdint>
#include <cstring>

namespace tformer {

inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline uint64_t load_u64_le(const uint8_t* p) { return uint64_t(load_u32_le(p)) | uint64_t(load_u32_le(p + 4)) << 32; }

inline int32_t load_i32_le(const uint8_t* p) {
  const uint32_t v = load_u32_le(p);
  int32_t s;
  std::memcpy(&s, &v, 4);
  return s;
}

inline float load_f32_le(const uint8_t* p) {
  const uint32_t v = load_u32_le(p);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}

}  // namespace tformer
