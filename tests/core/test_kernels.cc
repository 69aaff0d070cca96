// XNNPACK's kernels against the reference kernels on many shapes, odd and one-row ones included
// (the test-backend-ops idea): y = x W^T + b must agree to a tolerance scaled by the dot length.
#include <catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "kernels/kernels.h"
#include "kernels/quantize.h"

using namespace tformer;

namespace {

std::vector<float> random_vector(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace

TEST_CASE("XNNPACK fully-connected matches the reference on random shapes", "[kernels]") {
  const int threads = GENERATE(1, 2);
  CAPTURE(threads);
  auto reference = make_reference_kernels();
  auto xnnpack = make_xnnpack_kernels(threads);
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

namespace {

// Symmetric per-row int8 as the exporter writes it (models/tformer/tfm.py quantize_rows_int8).
void quantize_rows(const std::vector<float>& w, size_t in, size_t out, std::vector<int8_t>& q, std::vector<float>& scales) {
  q.resize(in * out);
  scales.resize(out);
  for (size_t o = 0; o < out; ++o) {
    float amax = 0.f;
    for (size_t i = 0; i < in; ++i) amax = std::max(amax, std::abs(w[o * in + i]));
    scales[o] = amax > 0 ? amax / 127.f : 1.f;
    for (size_t i = 0; i < in; ++i) q[o * in + i] = int8_t(std::lrint(w[o * in + i] / scales[o]));
  }
}

}  // namespace

TEST_CASE("qd8 row quantization follows XNNPACK's rules", "[kernels]") {
  // All-positive row: the range is [0, max], zero point -128 (0 maps to the lowest code).
  const quant::RowQuantization p = quant::qd8_params(0.5f, 2.55f);
  CHECK(p.zero_point == -128);
  CHECK(p.scale == Approx(2.55f / 255.f));
  // Symmetric-ish row: the zero point near the middle.
  CHECK(quant::qd8_params(-1.f, 1.f).zero_point == 0);  // -128 - (-127.5) = -0.5 rounds to even: 0
  CHECK(quant::qd8_params(0.f, 0.f).scale == 1.f);      // a row of zeros
  const float x[] = {-1.f, -0.5f, 0.f, 0.25f, 1.f};
  int8_t q[5];
  const quant::RowQuantization r = quant::quantize_row_qd8(x, 5, q);
  for (int i = 0; i < 5; ++i) CHECK(std::abs((q[i] - r.zero_point) * r.scale - x[i]) <= r.scale / 2 * 1.0001f);
  // The ends land on the ends of the code range (the multiplier is 1 / (1 / m) in f32, a hair
  // below m here: -127.5 becomes -127.49..., so -127).
  CHECK(q[0] == -127);
  CHECK(q[4] == 127);
}

TEST_CASE("XNNPACK int8 fully-connected (qd8 x qc8w) matches the reference's int8 arithmetic", "[kernels]") {
  const int threads = GENERATE(1, 2);
  CAPTURE(threads);
  auto reference = make_reference_kernels();
  auto xnnpack = make_xnnpack_kernels(threads);
  std::mt19937 rng(4321);
  int cases = 0;
  double worst_vs_f32 = 0;
  for (size_t rows : {size_t(1), size_t(2), size_t(5), size_t(17), size_t(64)}) {
    for (size_t in : {size_t(1), size_t(3), size_t(8), size_t(13), size_t(32), size_t(65), size_t(256), size_t(257)}) {
      for (size_t out : {size_t(1), size_t(3), size_t(16), size_t(33), size_t(100), size_t(513)}) {
        CAPTURE(rows, in, out);
        const auto w = random_vector(in * out, rng), b = random_vector(out, rng);
        auto x = random_vector(rows * in, rng);
        if (cases % 4 == 1)  // all-positive rows (after a ReLU): zero point at the bottom
          for (float& v : x) v = std::abs(v);
        std::vector<int8_t> q;
        std::vector<float> scales;
        quantize_rows(w, in, out, q, scales);
        const bool with_bias = (cases % 3) != 0;
        auto pr = reference->pack_linear_int8(q.data(), scales.data(), with_bias ? b.data() : nullptr, in, out);
        auto px = xnnpack->pack_linear_int8(q.data(), scales.data(), with_bias ? b.data() : nullptr, in, out);
        CHECK(px->int8());
        std::vector<float> yr(rows * out), yx(rows * out);
        reference->linear(*pr, x.data(), rows, yr.data());
        xnnpack->linear(*px, x.data(), rows, yx.data());
        // The same integers on both sides; only the f32 steps after the sum (a fused multiply-add
        // or not) may differ, by an ulp or two.
        double worst = 0;
        for (size_t i = 0; i < yr.size(); ++i)
          worst = std::max(worst, std::abs(double(yr[i]) - yx[i]) / (std::abs(double(yr[i])) + 1.0));
        CHECK(worst <= 1e-6);
        // And both near the f32 product: quantization error only.
        auto pf = reference->pack_linear(w.data(), with_bias ? b.data() : nullptr, in, out);
        std::vector<float> yf(rows * out);
        reference->linear(*pf, x.data(), rows, yf.data());
        for (size_t i = 0; i < yr.size(); ++i) worst_vs_f32 = std::max(worst_vs_f32, std::abs(double(yr[i]) - yf[i]) / std::sqrt(double(in)));
        ++cases;
      }
    }
  }
  CHECK(cases == 240);
  CHECK(worst_vs_f32 < 0.05);  // |x|, |w| <= 1: steps of 1/127 and 2/255, errors add up like a random walk
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
// XNNPACK's kernels may read past the end of their input (XNN_EXTRA_BYTES); the engine's inputs
// have no slack after them. An input that ends exactly where readable memory ends (a page that
// cannot be read follows it) must still be multiplied, not fault. 31 inputs: the last row's tail
// is not a whole number of vectors; 3 and 16 outputs: the narrow-layer kernels (4x2c4 on x86).
TEST_CASE("an input that ends at the last readable byte is multiplied without reading past it", "[kernels]") {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  void* map = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(map != MAP_FAILED);
  char* guard = static_cast<char*>(map) + 2 * page;
  REQUIRE(mprotect(guard, page, PROT_NONE) == 0);
  auto reference = make_reference_kernels();
  auto xnnpack = make_xnnpack_kernels(1);
  std::mt19937 rng(99);
  for (bool int8 : {false, true})
    for (size_t rows : {size_t(1), size_t(4), size_t(13)})
      for (size_t out : {size_t(3), size_t(16)}) {
        const size_t in = 31;
        CAPTURE(int8, rows, out);
        const auto w = random_vector(in * out, rng), b = random_vector(out, rng), values = random_vector(rows * in, rng);
        float* x = reinterpret_cast<float*>(guard) - rows * in;  // its last float is the page's last
        std::memcpy(x, values.data(), values.size() * sizeof(float));
        std::vector<int8_t> q(in * out);
        std::vector<float> scales(out, 1.f / 127);
        for (size_t i = 0; i < q.size(); ++i) q[i] = int8_t(std::lrint(w[i] * 127));
        auto pr = int8 ? reference->pack_linear_int8(q.data(), scales.data(), b.data(), in, out)
                       : reference->pack_linear(w.data(), b.data(), in, out);
        auto px = int8 ? xnnpack->pack_linear_int8(q.data(), scales.data(), b.data(), in, out)
                       : xnnpack->pack_linear(w.data(), b.data(), in, out);
        std::vector<float> yr(rows * out), yx(rows * out);
        reference->linear(*pr, values.data(), rows, yr.data());
        xnnpack->linear(*px, x, rows, yx.data());
        for (size_t i = 0; i < yr.size(); ++i) CHECK(yx[i] == Approx(yr[i]).margin(1e-4));
      }
  munmap(map, 3 * page);
}
#endif

TEST_CASE("a packed layer can be reused with changing row counts", "[kernels]") {
  auto xnnpack = make_xnnpack_kernels(2);
  auto reference = make_reference_kernels();
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

TEST_CASE("parallel_for visits every index exactly once", "[kernels]") {
  for (int threads : {1, 2, 4}) {
    auto kernels = make_xnnpack_kernels(threads);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    CHECK(kernels->threads() == 1);  // the single-threaded wasm build runs everything on one
#else
    CHECK(kernels->threads() == threads);
#endif
    std::vector<std::atomic<int>> seen(1000);
    kernels->parallel_for(seen.size(), [&](size_t i) { seen[i]++; });
    for (auto& s : seen) REQUIRE(s.load() == 1);
  }
}

TEST_CASE("the relu output clamp of f32 and int8 products equals max(0, product)", "[kernels]") {
  const int threads = GENERATE(1, 2);
  CAPTURE(threads);
  auto reference = make_reference_kernels();
  auto xnnpack = make_xnnpack_kernels(threads);
  std::mt19937 rng(99);
  const size_t rows = 37, in = 64, out = 150;
  const auto w = random_vector(in * out, rng), b = random_vector(out, rng), x = random_vector(rows * in, rng);
  std::vector<int8_t> q;
  std::vector<float> scales;
  quantize_rows(w, in, out, q, scales);
  for (Kernels* kernels : {reference.get(), xnnpack.get()}) {
    for (bool int8 : {false, true}) {
      CAPTURE(kernels->name(), int8);
      auto plain = int8 ? kernels->pack_linear_int8(q.data(), scales.data(), b.data(), in, out)
                        : kernels->pack_linear(w.data(), b.data(), in, out);
      auto clamped = int8 ? kernels->pack_linear_int8(q.data(), scales.data(), b.data(), in, out, /*relu=*/true)
                          : kernels->pack_linear(w.data(), b.data(), in, out, /*relu=*/true);
      CHECK(clamped->relu());
      CHECK_FALSE(plain->relu());
      std::vector<float> y(rows * out), yc(rows * out);
      kernels->linear(*plain, x.data(), rows, y.data());
      kernels->linear(*clamped, x.data(), rows, yc.data());
      size_t negatives = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        negatives += y[i] < 0.f;
        REQUIRE(yc[i] == std::max(y[i], 0.f));  // exact: the clamp only replaces negatives
      }
      CHECK(negatives > y.size() / 4);  // the case really exercises the clamp
    }
  }
}
