// Plain, obviously-correct implementation of the backend interface: the yardstick.
#include <vector>

#include "kernels/backend.h"

namespace tformer {
namespace {

class ReferenceLinear : public PackedLinear {
 public:
  ReferenceLinear(const float* w, const float* b, size_t in, size_t out)
      : PackedLinear(in, out), w_(w, w + in * out), b_(b ? std::vector<float>(b, b + out) : std::vector<float>()) {}
  std::vector<float> w_, b_;
};

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }
  int threads() const override { return 1; }

  std::unique_ptr<PackedLinear> pack_linear(const float* w, const float* b, size_t in, size_t out) override {
    return std::make_unique<ReferenceLinear>(w, b, in, out);
  }

  void linear(const PackedLinear& packed, const float* x, size_t rows, float* y) override {
    const auto& p = static_cast<const ReferenceLinear&>(packed);
    const size_t in = p.in(), out = p.out();
    for (size_t r = 0; r < rows; ++r) {
      for (size_t o = 0; o < out; ++o) {
        double acc = p.b_.empty() ? 0.0 : p.b_[o];  // double: the reference is the exact one
        const float* wr = &p.w_[o * in];
        const float* xr = x + r * in;
        for (size_t i = 0; i < in; ++i) acc += double(xr[i]) * wr[i];
        y[r * out + o] = static_cast<float>(acc);
      }
    }
  }

  void parallel_for(size_t n, const std::function<void(size_t)>& fn) override {
    for (size_t i = 0; i < n; ++i) fn(i);
  }
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace tformer
