// Plain, obviously-correct implementation of the Kernels interface: the yardstick.
#include <vector>

#include "kernels/kernels.h"
#include "kernels/quantize.h"

namespace tformer {
namespace {

class ReferenceLinear : public PackedLinear {
 public:
  ReferenceLinear(const float* w, const float* b, size_t in, size_t out, bool relu)
      : PackedLinear(in, out, false, relu),
        w_(w, w + in * out),
        b_(b ? std::vector<float>(b, b + out) : std::vector<float>()) {}
  std::vector<float> w_, b_;
};

class ReferenceLinearInt8 : public PackedLinear {
 public:
  ReferenceLinearInt8(const int8_t* w, const float* scales, const float* b, size_t in, size_t out, bool relu)
      : PackedLinear(in, out, true, relu),
        w_(w, w + in * out),
        scales_(scales, scales + out),
        b_(b ? std::vector<float>(b, b + out) : std::vector<float>()) {}
  std::vector<int8_t> w_;
  std::vector<float> scales_, b_;
};

class ReferenceKernels : public Kernels {
 public:
  std::string name() const override { return "reference"; }
  int threads() const override { return 1; }

  std::unique_ptr<PackedLinear> pack_linear(const float* w, const float* b, size_t in, size_t out,
                                            bool relu) override {
    return std::make_unique<ReferenceLinear>(w, b, in, out, relu);
  }

  std::unique_ptr<PackedLinear> pack_linear_int8(const int8_t* w, const float* scales, const float* b, size_t in,
                                                 size_t out, bool relu) override {
    return std::make_unique<ReferenceLinearInt8>(w, scales, b, in, out, relu);
  }

  void linear(const PackedLinear& packed, const float* x, size_t rows, float* y) override {
    if (packed.int8()) return linear_int8(static_cast<const ReferenceLinearInt8&>(packed), x, rows, y);
    const auto& p = static_cast<const ReferenceLinear&>(packed);
    const size_t in = p.in(), out = p.out();
    for (size_t r = 0; r < rows; ++r) {
      for (size_t o = 0; o < out; ++o) {
        double acc = p.b_.empty() ? 0.0 : p.b_[o];  // double: the reference is the exact one
        const float* wr = &p.w_[o * in];
        const float* xr = x + r * in;
        for (size_t i = 0; i < in; ++i) acc += double(xr[i]) * wr[i];
        const float v = static_cast<float>(acc);
        y[r * out + o] = p.relu() && !(v > 0.f) ? 0.f : v;
      }
    }
  }

  // XNNPACK's qd8 x qc8w product step by step: quantize the row, integer dot products, then
  // (float(acc) * row scale) * weight scale + bias in f32.
  static void linear_int8(const ReferenceLinearInt8& p, const float* x, size_t rows, float* y) {
    const size_t in = p.in(), out = p.out();
    std::vector<int8_t> q(in);
    for (size_t r = 0; r < rows; ++r) {
      const quant::RowQuantization rq = quant::quantize_row_qd8(x + r * in, in, q.data());
      for (size_t o = 0; o < out; ++o) {
        const int8_t* wr = &p.w_[o * in];
        int32_t acc = 0;
        for (size_t i = 0; i < in; ++i) acc += (int32_t(q[i]) - rq.zero_point) * int32_t(wr[i]);
        float v = float(acc) * rq.scale * p.scales_[o];
        if (!p.b_.empty()) v += p.b_[o];
        y[r * out + o] = p.relu() && !(v > 0.f) ? 0.f : v;
      }
    }
  }

  void parallel_for(size_t n, const std::function<void(size_t)>& fn) override {
    for (size_t i = 0; i < n; ++i) fn(i);
  }
};

}  // namespace

std::unique_ptr<Kernels> make_reference_kernels() { return std::make_unique<ReferenceKernels>(); }

}  // namespace tformer
