// IEEE 754 binary16 <-> binary32: f16 weights stored in .tfm files, and Marian models converted to them.
#pragma once

#include <cstdint>
#include <cstring>

namespace tformer {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000 | (mant << 13);  // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // subnormal: normalise the mantissa
    exp = 113;
    while (!(mant & 0x400)) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// float32 -> binary16, rounding to nearest even (numpy's astype(float16)).
inline uint16_t float_to_half(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0);  // inf, nan
  if (abs >= 0x47800000) return sign | 0x7C00;  // >= 65536: inf (65520 and up round there below)
  if (abs < 0x38800000) {  // below 2^-14: a half subnormal, in units of 2^-24
    if (abs < 0x33000000) return sign;  // below 2^-25: rounds to zero
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7FFFFF) | 0x800000;
    const uint32_t shift = 126 - e;
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return sign | uint16_t(q);
  }
  uint32_t r = abs - 0x38000000;  // rebias the exponent (127 -> 15)
  const uint32_t rem = r & 0x1FFF;
  r >>= 13;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;
  return sign | uint16_t(r);
}

}  // namespace tformer
