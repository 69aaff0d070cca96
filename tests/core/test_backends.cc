// Every backend against the reference backend on many shapes, odd and one-row ones included
// (the test-backend-ops idea): y = x W^T + b must agree to a tolerance scaled by the dot length.
#include <catch.hpp>

#include <atomic>
#include <cmath>
#include <random>

#include "kernels/backend.h"

using namespace tformer;

namespace {

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("XNNPACK fully-connected matches the reference on random shapes", "[backend]") {
  const int threads = GENERATE(1, 2);
  CAPTURE(threads);
  auto reference = make_reference_backend();
  auto xnnpack = make_xnnpack_backend(threads);
  std::mt19937 rng(1234);
  const size_t sizes[] = {1, 2, 3, 7, 8, 13, 16, 31, 32, 64, 65, 127, 256, 257};
  int cases = 0;
  for (size_t rows : {size_t(1), size_t(2), size_t(5), size_t(17), size_t(64), size_t(129)}) {
    for (size_t in : sizes) {
      for (size_t out : {size_t(1), size_t(3), size_t(16), size_t(33), size_t(100), size_t(513)}) {
        if (rows * in * out > 4'000'000) continue;
        CAPTURE(rows, in, out);
        const auto w = random_vector(in * out, rng), b = random_vector(out, rng), x = random_vector(rows * in, rng);
        const bool with_bias = (cases % 3) != 0;
        auto pr = reference->pack_linear(w.data(), with_bias ? b.data() : nullptr, in, out);
        auto px = xnnpack->pack_linear(w.data(), with_bias ? b.data() : nullptr, in, out);
        std::vector<float> yr(rows * out), yx(rows * out);
        reference->linear(*pr, x.data(), rows, yr.data());
        xnnpack->linear(*px, x.data(), rows, yx.data());
        double worst = 0;
        for (size_t i = 0; i < yr.size(); ++i) worst = std::max(worst, double(std::abs(yr[i] - yx[i])));
        // |x|, |w| <= 1: the sum of `in` products loses at most ~in * 2^-23 per term in f32.
        CHECK(worst <= 1e-6 * double(in) + 1e-6);
        ++cases;
      }
    }
  }
  CHECK(cases > 400);
}

TEST_CASE("a packed layer can be reused with changing row counts", "[backend]") {
  auto xnnpack = make_xnnpack_backend(2);
  auto reference = make_reference_backend();
  std::mt19937 rng(7);
  const size_t in = 48, out = 40;
  const auto w = random_vector(in * out, rng), b = random_vector(out, rng);
  auto px = xnnpack->pack_linear(w.data(), b.data(), in, out);
  auto pr = reference->pack_linear(w.data(), b.data(), in, out);
  for (size_t rows : {size_t(4), size_t(1), size_t(33), size_t(2), size_t(4)}) {
    const auto x = random_vector(rows * in, rng);
    std::vector<float> yx(rows * out), yr(rows * out);
    xnnpack->linear(*px, x.data(), rows, yx.data());
    reference->linear(*pr, x.data(), rows, yr.data());
    for (size_t i = 0; i < yx.size(); ++i) REQUIRE(std::abs(yx[i] - yr[i]) < 1e-4);
  }
}

TEST_CASE("parallel_for visits every index exactly once", "[backend]") {
  for (int threads : {1, 2, 4}) {
    auto backend = make_xnnpack_backend(threads);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    CHECK(backend->threads() == 1);  // the single-threaded wasm build runs everything on one
#else
    CHECK(backend->threads() == threads);
#endif
    std::vector<std::atomic<int>> seen(1000);
    backend->parallel_for(seen.size(), [&](size_t i) { seen[i]++; });
    for (auto& s : seen) REQUIRE(s.load() == 1);
  }
}
