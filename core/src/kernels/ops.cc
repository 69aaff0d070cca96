#include "kernels/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tformer::ops {
namespace {

// Eight floats as one value (GCC/Clang vector extensions): the compilers emit two SSE or one AVX2
// operation natively and two SIMD128 operations in wasm. Plain loops with the same arithmetic did
// not vectorise (the select and the float->int conversion defeated GCC), and libm's exp is a call
// per element: together they were 12-15% of a beam step (16k exps per row).
// Natively the project builds for baseline x86-64; the row kernels below also get an AVX2 clone
// chosen at load time (GCC's target_clones; no FMA, so results are the same on every machine).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define TFORMER_ROW_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define TFORMER_ROW_KERNEL
#endif
#define TFORMER_INLINE inline __attribute__((always_inline))

typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef int32_t i32x4 __attribute__((vector_size(16)));

TFORMER_INLINE f32x8 splat(float v) { return f32x8{v, v, v, v, v, v, v, v}; }
TFORMER_INLINE f32x8 load(const float* p) {
  f32x8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
TFORMER_INLINE void store(float* p, f32x8 v) { std::memcpy(p, &v, sizeof v); }
// mask ? a : b per lane, for masks made by a comparison (all bits set or none).
TFORMER_INLINE f32x8 select(i32x8 mask, f32x8 a, f32x8 b) {
  return reinterpret_cast<f32x8>((mask & reinterpret_cast<i32x8>(a)) | (~mask & reinterpret_cast<i32x8>(b)));
}

// exp(x) for the x <= 0 that softmax and log-sum-exp feed it (x - row max), branch-free.
// Cephes' expf: x = n ln2 + r with |r| <= ln2/2, exp(r) by a degree-7 polynomial (about 1 ulp),
// times 2^n built in the exponent bits. Below -87 (and at -inf, masked entries) the result is 0.
TFORMER_INLINE f32x8 exp_nonpositive(f32x8 x) {
  const i32x8 in_range = x >= splat(-87.f);  // false for -inf and NaN
  const f32x8 clamped = select(in_range, x, splat(-87.f));
  // Round to nearest by the 1.5 * 2^23 trick (exact for |n| < 2^22).
  const f32x8 n = (clamped * 1.44269504088896341f + 12582912.f) - 12582912.f;
  const f32x8 r = (clamped - n * 0.693359375f) + n * 2.12194440e-4f;
  f32x8 p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.f;
  const i32x8 bits = (__builtin_convertvector(n, i32x8) + 127) << 23;
  return select(in_range, p * reinterpret_cast<f32x8>(bits), splat(0.f));
}

// Whether any lane of a comparison's mask is set: halves folded, so two lane reads instead of
// eight (GCC extracted each lane on its own).
TFORMER_INLINE bool any_lane(i32x8 mask) {
  const i32x4 h = __builtin_shufflevector(mask, mask, 0, 1, 2, 3) | __builtin_shufflevector(mask, mask, 4, 5, 6, 7);
  const i32x4 q = h | __builtin_shufflevector(h, h, 2, 3, 0, 1);
  return (q[0] | q[1]) != 0;
}

TFORMER_INLINE float horizontal_sum(f32x8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

// horizontal_sum of four vectors at once (lane j: the sum of the j-th argument), in the same order.
TFORMER_INLINE f32x4 horizontal_sum4(f32x8 a, f32x8 b, f32x8 c, f32x8 d) {
  const auto halves = [](f32x8 v) -> f32x4 {
    return __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  };
  const f32x4 sa = halves(a), sb = halves(b), sc = halves(c), sd = halves(d);
  const f32x4 ab = __builtin_shufflevector(sa, sb, 0, 2, 4, 6) + __builtin_shufflevector(sa, sb, 1, 3, 5, 7);
  const f32x4 cd = __builtin_shufflevector(sc, sd, 0, 2, 4, 6) + __builtin_shufflevector(sc, sd, 1, 3, 5, 7);
  return __builtin_shufflevector(ab, cd, 0, 2, 4, 6) + __builtin_shufflevector(ab, cd, 1, 3, 5, 7);
}

TFORMER_INLINE float row_max(const float* x, size_t n) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  f32x8 m = splat(kNegInf);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const f32x8 v = load(x + i);
    m = select(v > m, v, m);
  }
  float best = std::max(std::max(std::max(m[0], m[1]), std::max(m[2], m[3])),
                        std::max(std::max(m[4], m[5]), std::max(m[6], m[7])));
  for (; i < n; ++i) best = std::max(best, x[i]);
  return best;
}

// sum of exp(x[i] - m), eight lanes at a time; with `out`, also stores each term.
TFORMER_INLINE float sum_exp_minus(const float* x, size_t n, float m, float* out) {
  f32x8 acc = splat(0.f);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const f32x8 e = exp_nonpositive(load(x + i) - m);
    if (out) store(out + i, e);
    acc += e;
  }
  if (i < n) {  // the tail, padded with -inf (exp 0)
    float tail[8];
    for (size_t k = 0; k < 8; ++k) tail[k] = i + k < n ? x[i + k] - m : -std::numeric_limits<float>::infinity();
    const f32x8 e = exp_nonpositive(load(tail));
    for (size_t k = 0; i + k < n; ++k)
      if (out) out[i + k] = e[k];
    acc += e;
  }
  return horizontal_sum(acc);
}

}  // namespace

float exp_approx(float x) { return exp_nonpositive(splat(x))[0]; }

TFORMER_ROW_KERNEL void layer_norm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta,
                                   float eps, float* y) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    // Eight partial sums (entry i in sum i mod 8) instead of one chain of dependent double
    // additions, which bounded the loops by the adder's latency. The order differs from one
    // chain's, but in double: the float mean and scale it rounds to come out the same but for
    // sums within a double rounding of a float halfway point.
    double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0}, squares[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= d; i += 8)
      for (size_t k = 0; k < 8; ++k) sums[k] += xr[i + k];
    for (; i < d; ++i) sums[i % 8] += xr[i];
    const double sum = ((sums[0] + sums[4]) + (sums[1] + sums[5])) + ((sums[2] + sums[6]) + (sums[3] + sums[7]));
    const float mean = static_cast<float>(sum / double(d));
    for (i = 0; i + 8 <= d; i += 8)
      for (size_t k = 0; k < 8; ++k) {
        const double c = double(xr[i + k]) - mean;
        squares[k] += c * c;
      }
    for (; i < d; ++i) {
      const double c = double(xr[i]) - mean;
      squares[i % 8] += c * c;
    }
    const double var =
        ((squares[0] + squares[4]) + (squares[1] + squares[5])) + ((squares[2] + squares[6]) + (squares[3] + squares[7]));
    const float inv = static_cast<float>(1.0 / std::sqrt(var / double(d) + eps));
    for (size_t i = 0; i < d; ++i) yr[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
  }
}

void add_inplace(float* x, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] += y[i];
}

void swish_inplace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::exp(-x[i]));
}

TFORMER_ROW_KERNEL void softmax_inplace(float* x, size_t n) {
  const float m = row_max(x, n);
  const float inv = 1.f / sum_exp_minus(x, n, m, x);
  for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

TFORMER_ROW_KERNEL void max_and_log_sum_exp(const float* x, size_t n, float* max, float* log_sum) {
  const float m = row_max(x, n);
  *max = m;
  *log_sum = std::log(sum_exp_minus(x, n, m, nullptr));
}

void log_softmax(const float* x, size_t n, float* out) {
  float m, log_sum;
  max_and_log_sum_exp(x, n, &m, &log_sum);
  for (size_t i = 0; i < n; ++i) out[i] = (x[i] - m) - log_sum;
}

TFORMER_ROW_KERNEL size_t top_k(const float* x, size_t n, size_t k, int skip, int* top) {
  if (k == 0) return 0;
  size_t found = 0;
  float threshold = 0.f;  // the k-th best value once k are found; anything enters before that
  auto consider = [&](size_t v) {
    const float value = x[v];
    // Strictly better only: on ties the entry met first (the lower index) keeps its place.
    if ((found == k && !(value > threshold)) || int(v) == skip) return;
    size_t j = found < k ? found++ : k - 1;
    for (; j > 0 && value > x[top[j - 1]]; --j) top[j] = top[j - 1];
    top[j] = int(v);
    if (found == k) threshold = x[top[k - 1]];
  };
  // Once k are found, almost every block holds nothing above the threshold: a few vector compares
  // skip it (consider() would reject each of its entries anyway, so skipping changes nothing).
  // Blocks of 32, so that the test of the mask is paid once per 32 entries.
  size_t v = 0;
  for (; v + 32 <= n; v += 32) {
    if (found == k) {
      const f32x8 t = splat(threshold);
      const i32x8 above = ((load(x + v) > t) | (load(x + v + 8) > t)) | ((load(x + v + 16) > t) | (load(x + v + 24) > t));
      if (!any_lane(above)) continue;
    }
    for (size_t i = v; i < v + 32; ++i) consider(i);
  }
  for (; v + 8 <= n; v += 8) {
    if (found == k && !any_lane(load(x + v) > splat(threshold))) continue;
    for (size_t i = v; i < v + 8; ++i) consider(i);
  }
  for (; v < n; ++v) consider(v);
  return found;
}

TFORMER_ROW_KERNEL size_t top_k_and_log_sum_exp(const float* x, size_t n, size_t k, int skip, int* top, float* max,
                                                float* log_sum) {
  const size_t found = top_k(x, n, k, skip, top);
  // std::max as row_max's scalar tail uses it; the top k hold the max of every entry but `skip`.
  float m = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < found; ++i) m = std::max(m, x[top[i]]);
  if (skip >= 0 && size_t(skip) < n) m = std::max(m, x[skip]);
  *max = m;
  *log_sum = std::log(sum_exp_minus(x, n, m, nullptr));
  return found;
}

TFORMER_ROW_KERNEL float dot(const float* a, const float* b, size_t n) {
  // Eight independent partial sums so that the loop vectorises without -ffast-math.
  float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (size_t k = 0; k < 8; ++k) acc[k] += a[i + k] * b[i + k];
  float tail = 0.f;
  for (; i < n; ++i) tail += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

TFORMER_ROW_KERNEL void axpy(float a, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += a * x[i];
}

// Attention for head widths known at compile time: the query slice (scores) or the output slice
// (values) stays in registers across all positions instead of one dot/axpy call per position and
// head, and four positions' dot products share one horizontal reduction. Arithmetic is dot()'s and
// axpy()'s, lane for lane, so results equal the per-call loop bit for bit.
namespace {

template <size_t DH>
TFORMER_INLINE f32x8 dot_partials(const f32x8 (&q)[DH / 8], const float* k) {
  f32x8 acc = q[0] * load(k);
  for (size_t c = 1; c < DH / 8; ++c) acc = acc + q[c] * load(k + 8 * c);
  return acc;
}

template <size_t DH>
TFORMER_INLINE void head_scores(const float* qh, const float* kh, size_t n, size_t stride, float scale, float* s) {
  f32x8 q[DH / 8];
  for (size_t c = 0; c < DH / 8; ++c) q[c] = load(qh + 8 * c);
  size_t t = 0;
  for (; t + 4 <= n; t += 4) {
    const float* k = kh + t * stride;
    const f32x4 r = horizontal_sum4(dot_partials<DH>(q, k), dot_partials<DH>(q, k + stride),
                                    dot_partials<DH>(q, k + 2 * stride), dot_partials<DH>(q, k + 3 * stride)) *
                    scale;
    std::memcpy(s + t, &r, sizeof r);
  }
  for (; t < n; ++t) s[t] = horizontal_sum(dot_partials<DH>(q, kh + t * stride)) * scale;
}

template <size_t DH>
TFORMER_INLINE void head_values(const float* p, const float* vh, size_t n, size_t stride, float* oh) {
  f32x8 o[DH / 8] = {};
  for (size_t t = 0; t < n; ++t) {
    const f32x8 a = splat(p[t]);
    for (size_t c = 0; c < DH / 8; ++c) o[c] = o[c] + a * load(vh + t * stride + 8 * c);
  }
  for (size_t c = 0; c < DH / 8; ++c) store(oh + 8 * c, o[c]);
}

}  // namespace

TFORMER_ROW_KERNEL void attention_scores(const float* q, const float* k, size_t n, size_t stride, size_t heads,
                                         size_t dh, float scale, float* scores) {
  for (size_t h = 0; h < heads; ++h) {
    const float *qh = q + h * dh, *kh = k + h * dh;
    float* s = scores + h * n;
    if (dh == 32)
      head_scores<32>(qh, kh, n, stride, scale, s);
    else if (dh == 64)
      head_scores<64>(qh, kh, n, stride, scale, s);
    else
      for (size_t t = 0; t < n; ++t) s[t] = dot(qh, kh + t * stride, dh) * scale;
  }
}

TFORMER_ROW_KERNEL void attention_values(const float* p, const float* v, size_t n, size_t stride, size_t heads,
                                         size_t dh, float* out) {
  for (size_t h = 0; h < heads; ++h) {
    const float *ph = p + h * n, *vh = v + h * dh;
    float* oh = out + h * dh;
    if (dh == 32) {
      head_values<32>(ph, vh, n, stride, oh);
    } else if (dh == 64) {
      head_values<64>(ph, vh, n, stride, oh);
    } else {
      for (size_t i = 0; i < dh; ++i) oh[i] = 0.f;
      for (size_t t = 0; t < n; ++t) axpy(ph[t], vh + t * stride, oh, dh);
    }
  }
}

}  // namespace tformer::ops
