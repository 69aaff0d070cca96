// Dynamic per-row int8 quantization of f32 activations, computed exactly as XNNPACK's
// convert_nc_f32_qd8 operator does it (src/xnnpack/quantization.h and the f32-qs8-vcvt kernels of
// the pinned XNNPACK), so that the reference kernels and the PyTorch int8 reference
// (models/tformer/model.py, qd8_quantize) reproduce the XNNPACK kernels' arithmetic:
//   rmin = min(0, min x), rmax = max(0, max x), m = 255 / (rmax - rmin) (1 when rmin == rmax);
//   zero point = the end of [-128, 127] the range maps closer to, clamped, rounded to nearest even;
//   scale = 1 / m (what a product is multiplied by), and q = clamp(rint(x * (1 / scale)) + zp).
// All in f32; rint rounds half to even (the default rounding mode), as the kernels do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace tformer::quant {

struct RowQuantization {
  int32_t zero_point = 0;
  float scale = 1.f;  // x ~ (q - zero_point) * scale
};

inline RowQuantization qd8_params(float min, float max) {
  const float qmin = -128.f, qmax = 127.f;
  const float rmin = std::min(0.f, min), rmax = std::max(0.f, max);
  const float m = rmin == rmax ? 1.f : (qmax - qmin) / (rmax - rmin);
  const float descaled_min = rmin * m, descaled_max = rmax * m;
  const float from_min_error = qmin + descaled_min, from_max_error = qmax + descaled_max;
  float zero_point = from_min_error + from_max_error > 0 ? qmin - descaled_min : qmax - descaled_max;
  zero_point = std::min(std::max(zero_point, qmin), qmax);
  RowQuantization p;
  p.zero_point = static_cast<int32_t>(std::lrint(zero_point));
  p.scale = 1.f / m;
  return p;
}

// Quantizes one row of n values into q; returns its parameters.
inline RowQuantization quantize_row_qd8(const float* x, size_t n, int8_t* q) {
  float lo = 0.f, hi = 0.f;
  if (n) lo = hi = x[0];
  for (size_t i = 1; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const RowQuantization p = qd8_params(lo, hi);
  const float multiplier = 1.f / p.scale;
  for (size_t i = 0; i < n; ++i) {
    const float v = std::rint(x[i] * multiplier) + float(p.zero_point);
    q[i] = static_cast<int8_t>(std::min(127.f, std::max(-128.f, v)));
  }
  return p;
}

}  // namespace tformer::quant
