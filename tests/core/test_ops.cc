// The row kernels the search and attention rely on, against double-precision libm: the
// vectorisable exp, softmax, log-sum-exp and the top-k selection with its tie rule.
#include <catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/ops.h"

using namespace tformer;

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
}

TEST_CASE("exp_approx is within 2 ulp of exp over [-87, 0] and 0 below", "[ops]") {
  for (double x = -87.0; x <= 0.0; x += 0.001237) {
    const double want = std::exp(x);
    const double got = ops::exp_approx(float(x));
    // Relative to exp of the float argument, so that rounding x to float is not counted.
    const double ref = std::exp(double(float(x)));
    CAPTURE(x, want, got);
    REQUIRE(std::abs(got - ref) <= 2.5 * std::ldexp(1.0, std::ilogb(ref) - 23));
  }
  REQUIRE(ops::exp_approx(0.f) == 1.f);
  REQUIRE(ops::exp_approx(-88.f) == 0.f);
  REQUIRE(ops::exp_approx(-1e30f) == 0.f);
  REQUIRE(ops::exp_approx(kNegInf) == 0.f);
}

TEST_CASE("softmax and log-sum-exp agree with double precision on vocabulary-sized rows", "[ops]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> logit(0.f, 6.f);
  for (size_t n : {1u, 7u, 8u, 9u, 100u, 16000u, 32003u}) {
    CAPTURE(n);
    std::vector<float> x(n);
    for (float& v : x) v = logit(rng);
    if (n > 3) x[2] = kNegInf;  // a masked entry
    double m = -INFINITY, sum = 0.0;
    for (float v : x) m = std::max(m, double(v));
    for (float v : x) sum += std::exp(double(v) - m);
    float got_m, got_log_sum;
    ops::max_and_log_sum_exp(x.data(), n, &got_m, &got_log_sum);
    REQUIRE(got_m == float(m));
    REQUIRE(std::abs(double(got_log_sum) - std::log(sum)) <= 1e-5 * std::max(1.0, std::log(sum)));

    std::vector<float> p = x;
    ops::softmax_inplace(p.data(), n);
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const double want = std::exp(double(x[i]) - m) / sum;
      // float rounding of x - max alone moves p by |x - max| * 2^-24 relative: 1e-5 covers |x - max| < 80.
      REQUIRE(std::abs(p[i] - want) <= 1e-5 * want + 1e-12);
      total += p[i];
    }
    REQUIRE(std::abs(total - 1.0) < 1e-5);
    if (n > 3) REQUIRE(p[2] == 0.f);
  }
}

TEST_CASE("top_k returns the best entries best first, lower index first on ties, skipping one", "[ops]") {
  const std::vector<float> x = {1.f, 5.f, 3.f, 5.f, kNegInf, 4.f, 5.f, 0.f};
  std::vector<int> top(4);
  REQUIRE(ops::top_k(x.data(), x.size(), 4, -1, top.data()) == 4);
  REQUIRE(top == std::vector<int>{1, 3, 6, 5});
  REQUIRE(ops::top_k(x.data(), x.size(), 4, 3, top.data()) == 4);
  REQUIRE(top == std::vector<int>{1, 6, 5, 2});
  std::vector<int> one(1);
  REQUIRE(ops::top_k(x.data(), x.size(), 1, 1, one.data()) == 1);
  REQUIRE(one[0] == 3);
  std::vector<int> many(10, -7);
  REQUIRE(ops::top_k(x.data(), x.size(), 10, 0, many.data()) == 7);
  REQUIRE(std::vector<int>(many.begin(), many.begin() + 7) == std::vector<int>{1, 3, 6, 5, 2, 7, 4});
  REQUIRE(ops::top_k(x.data(), x.size(), 0, -1, many.data()) == 0);

  // Against a full stable sort on a long random row with many ties.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> level(0, 50);
  std::vector<float> row(16000);
  for (float& v : row) v = float(level(rng));
  std::vector<int> order(row.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  order.erase(order.begin() + 17);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return row[size_t(a)] > row[size_t(b)]; });
  std::vector<int> best(8);
  REQUIRE(ops::top_k(row.data(), row.size(), 8, 17, best.data()) == 8);
  REQUIRE(best == std::vector<int>(order.begin(), order.begin() + 8));
}

TEST_CASE("top_k_and_log_sum_exp gives the numbers of top_k and max_and_log_sum_exp", "[ops]") {
  // The search's candidates pass relies on it bit for bit: rows where the max is the skipped
  // entry, is tied, is -inf everywhere, or lies in the tail after the last block of eight.
  std::mt19937 rng(11);
  std::normal_distribution<float> logit(0.f, 4.f);
  for (size_t n : {1, 2, 7, 8, 9, 31, 33, 40, 71, 1000, 16003}) {
    for (int variant = 0; variant < 5; ++variant) {
      std::vector<float> x(n);
      for (float& v : x) v = logit(rng);
      int skip = n > 1 ? int(n / 2) : -1;
      if (variant == 1 && skip >= 0) x[size_t(skip)] = 100.f;  // the max is the skipped entry
      if (variant == 2) x[n - 1] = 50.f, x[0] = 50.f;            // tied max, first and in the tail
      if (variant == 3) std::fill(x.begin(), x.end(), kNegInf);
      if (variant == 4) skip = -1;
      for (size_t k : {1, 4, 8, 12}) {
        std::vector<int> want_top(k, -1), got_top(k, -1);
        float want_m, want_log_sum, got_m, got_log_sum;
        const size_t want_found = ops::top_k(x.data(), n, k, skip, want_top.data());
        ops::max_and_log_sum_exp(x.data(), n, &want_m, &want_log_sum);
        const size_t got_found = ops::top_k_and_log_sum_exp(x.data(), n, k, skip, got_top.data(), &got_m, &got_log_sum);
        // top_k itself against a stable sort (its blocks of 32 and 8 and its scalar tail).
        std::vector<int> order;
        for (size_t i = 0; i < n; ++i)
          if (int(i) != skip) order.push_back(int(i));
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return x[size_t(a)] > x[size_t(b)]; });
        order.resize(std::min(order.size(), k));
        REQUIRE(std::vector<int>(want_top.begin(), want_top.begin() + long(want_found)) == order);
        REQUIRE(got_found == want_found);
        REQUIRE(got_top == want_top);
        REQUIRE(got_m == want_m);
        REQUIRE(got_log_sum == want_log_sum);
      }
    }
  }
}

TEST_CASE("layer_norm agrees with double precision, at widths with and without a tail of the 8 partial sums", "[ops]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> value(0.5f, 3.f);
  for (size_t d : {1, 3, 8, 13, 256, 515}) {
    const size_t rows = 3;
    std::vector<float> x(rows * d), gamma(d), beta(d), y(rows * d);
    for (float& v : x) v = value(rng);
    for (float& v : gamma) v = value(rng);
    for (float& v : beta) v = value(rng);
    ops::layer_norm(x.data(), rows, d, gamma.data(), beta.data(), 1e-5f, y.data());
    for (size_t r = 0; r < rows; ++r) {
      double mean = 0.0, var = 0.0;
      for (size_t i = 0; i < d; ++i) mean += x[r * d + i];
      mean /= double(d);
      for (size_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
      const double inv = 1.0 / std::sqrt(var / double(d) + 1e-5);
      for (size_t i = 0; i < d; ++i) {
        const double want = (x[r * d + i] - mean) * inv * gamma[i] + beta[i];
        REQUIRE(std::abs(y[r * d + i] - want) <= 1e-5 * (1.0 + std::abs(want)));
      }
    }
  }
}

TEST_CASE("attention_scores and attention_values equal the per-head dot/axpy loop bit for bit", "[ops]") {
  // Against the double-precision result too, so that a kernel and the loop cannot be wrong together.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (size_t dh : {32u, 64u, 24u}) {  // the two compiled widths and the generic fallback
    for (size_t n : {1u, 3u, 4u, 5u, 8u, 13u}) {
      const size_t heads = 4, d = heads * dh, stride = 2 * d + 8;  // padded rows, as in the caches
      std::vector<float> q(d), kv(n * stride), p(heads * n);
      for (float& x : q) x = u(rng);
      for (float& x : kv) x = u(rng);
      for (float& x : p) x = u(rng);
      const float scale = 0.17677669f;
      std::vector<float> scores(heads * n), out(d);
      ops::attention_scores(q.data(), kv.data(), n, stride, heads, dh, scale, scores.data());
      ops::attention_values(p.data(), kv.data() + d, n, stride, heads, dh, out.data());
      for (size_t h = 0; h < heads; ++h) {
        std::vector<float> want_out(dh, 0.f);
        for (size_t t = 0; t < n; ++t) {
          CAPTURE(dh, n, h, t);
          const float* k = &kv[t * stride + h * dh];
          REQUIRE(scores[h * n + t] == ops::dot(&q[h * dh], k, dh) * scale);
          double exact = 0;
          for (size_t i = 0; i < dh; ++i) exact += double(q[h * dh + i]) * k[i];
          REQUIRE(std::abs(scores[h * n + t] - exact * scale) < 1e-5);
          ops::axpy(p[h * n + t], &kv[t * stride + d + h * dh], want_out.data(), dh);
        }
        for (size_t i = 0; i < dh; ++i) {
          CAPTURE(dh, n, h, i);
          REQUIRE(out[h * dh + i] == want_out[i]);
          double exact = 0;
          for (size_t t = 0; t < n; ++t) exact += double(p[h * n + t]) * kv[t * stride + d + h * dh + i];
          REQUIRE(std::abs(out[h * dh + i] - exact) < 1e-5);
        }
      }
    }
  }
}
