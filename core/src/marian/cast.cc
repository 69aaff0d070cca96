#include "marian/cast.h"

#include <algorithm>
#include <cmath>

#include "util/half.h"

namespace tformer::marian {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void quantize_rows(const Tensor& w, Tensor& q, Tensor& scales) {
  const int64_t rows = w.shape[0], cols = w.shape[1];
  q.dtype = "i8";
  q.shape = w.shape;
  q.q.resize(size_t(rows * cols));
  scales = f32_tensor({rows}, std::vector<float>(size_t(rows)));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = w.f.data() + r * cols;
    float amax = 0.f;
    for (int64_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(row[c]));
    const float s = amax > 0.f ? amax / 127.0f : 1.0f;
    scales.f[size_t(r)] = s;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = std::nearbyint(row[c] / s);
      q.q[size_t(r * cols + c)] = static_cast<int8_t>(std::min(127.f, std::max(-127.f, v)));
    }
  }
}

Tensor dequantized(const Tensor& q, const std::vector<float>& row_scales) {
  const int64_t rows = q.shape[0], cols = q.shape[1];
  std::vector<float> out(q.q.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[size_t(r * cols + c)] = float(q.q[size_t(r * cols + c)]) * row_scales[size_t(r)];
  }
  return f32_tensor(q.shape, std::move(out));
}

}  // namespace

void cast(Tensors& tensors, const std::string& weights) {
  if (weights == "keep") return;
  for (const std::string& name : tensors.names()) {
    if (ends_with(name, ".scales")) continue;
    Tensor& t = tensors.at(name);
    if (t.shape.size() != 2 || (t.dtype != "f32" && t.dtype != "i8")) continue;
    if (t.dtype == "i8") {
      if (weights == "int8") continue;  // an int8 matrix stays as it is, with its scales
      const std::string scales = t.scales;
      t = dequantized(t, tensors.at(scales).f);
      tensors.erase(scales);
    }
    Tensor& m = tensors.at(name);
    if (weights == "int8") {
      Tensor q, s;
      quantize_rows(m, q, s);
      q.scales = name + ".scales";
      m = std::move(q);
      tensors.set(name + ".scales", std::move(s));
    } else if (weights == "f16") {
      m.dtype = "f16";
      m.h.resize(m.f.size());
      for (size_t i = 0; i < m.f.size(); ++i) m.h[i] = float_to_half(m.f[i]);
      m.f = {};
    }
  }
}

}  // namespace tformer::marian
