#include "kernels/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tformer::ops {

void layer_norm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta, float eps,
                float* y) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    double sum = 0.0;
    for (size_t i = 0; i < d; ++i) sum += xr[i];
    const float mean = static_cast<float>(sum / double(d));
    double var = 0.0;
    for (size_t i = 0; i < d; ++i) {
      const double c = double(xr[i]) - mean;
      var += c * c;
    }
    const float inv = static_cast<float>(1.0 / std::sqrt(var / double(d) + eps));
    for (size_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
  }
}

void add_inplace(float* x, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] += y[i];
}

void relu_inplace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
}

void swish_inplace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::exp(-x[i]));
}

void softmax_inplace(float* x, size_t n) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - m);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

void max_and_log_sum_exp(const float* x, size_t n, float* max, float* log_sum) {
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += std::exp(double(x[i] - m));
  *max = m;
  *log_sum = static_cast<float>(std::log(sum));
}

void log_softmax(const float* x, size_t n, float* out) {
  float m, log_sum;
  max_and_log_sum_exp(x, n, &m, &log_sum);
  for (size_t i = 0; i < n; ++i) out[i] = (x[i] - m) - log_sum;
}

float dot(const float* a, const float* b, size_t n) {
  // Eight independent partial sums so that the loop vectorises without -ffast-math.
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (size_t k = 0; k < 8; ++k) acc[k] += a[i + k] * b[i + k];
  float tail = 0.f;
  for (; i < n; ++i) tail += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

void axpy(float a, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += a * x[i];
}

}  // namespace tformer::ops
