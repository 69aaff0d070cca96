// Element-wise and row-wise kernels outside the matrix products. Plain loops written so that
// compilers vectorise them (SSE/AVX natively, SIMD128 with -msimd128 in wasm).
#pragma once

#include <cstddef>

namespace tformer::ops {

// y[r] = (x[r] - mean) / sqrt(var + eps) * gamma + beta, for `rows` rows of width d. x may be y.
void layer_norm(const float* x, size_t rows, size_t d, const float* gamma, const float* beta, float eps,
                float* y);
void add_inplace(float* x, const float* y, size_t n);  // x += y
void swish_inplace(float* x, size_t n);  // x * sigmoid(x)
// In-place softmax of one row of n values; entries equal to -inf get weight 0.
void softmax_inplace(float* x, size_t n);
// log_softmax of one row into out (may alias): (x - max) - log(sum(exp(x - max))).
void log_softmax(const float* x, size_t n, float* out);
// The two numbers log_softmax derives each output from: out[i] = (x[i] - max) - log_sum.
void max_and_log_sum_exp(const float* x, size_t n, float* max, float* log_sum);
// exp(x) for x <= 0 as softmax and max_and_log_sum_exp compute it (about 1 ulp; 0 below -87).
float exp_approx(float x);
// The best k entries of x[n] by value, best first (ties: lower index), skipping index `skip`
// (-1: none): indices to top[k]; returns how many were found (min(k, n - skipped)).
size_t top_k(const float* x, size_t n, size_t k, int skip, int* top);
// top_k (k >= 1) and max_and_log_sum_exp of the same row in two passes over x instead of three:
// the max is the best of the top k and the skipped entry, so that row_max's pass is not needed.
// For a row without NaN, the very numbers of the two calls.
size_t top_k_and_log_sum_exp(const float* x, size_t n, size_t k, int skip, int* top, float* max, float* log_sum);
float dot(const float* a, const float* b, size_t n);
void axpy(float a, const float* x, float* y, size_t n);  // y += a * x

// The two halves of multi-head attention for one query, all heads in one call. Heads are
// contiguous dh-wide slices; key and value rows start every `stride` floats.
// scores[h * n + t] = dot(q + h dh, k + t stride + h dh, dh) * scale, summed in dot()'s order.
void attention_scores(const float* q, const float* k, size_t n, size_t stride, size_t heads, size_t dh,
                      float scale, float* scores);
// out[h dh + i] = sum over t = 0..n-1, in order, of p[h * n + t] * v[t stride + h dh + i].
void attention_values(const float* p, const float* v, size_t n, size_t stride, size_t heads, size_t dh,
                      float* out);

}  // namespace tformer::ops
