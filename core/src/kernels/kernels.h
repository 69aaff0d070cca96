// The narrow interface behind which matrix products run (the ggml-backend / CTranslate2 op
// dispatch idea): layers hand weights over once at load ("pack") and call `linear` per step.
// Implementations: XnnpackKernels (XNNPACK fully-connected operators on a pthreadpool) and
// ReferenceKernels (plain loops, the yardstick the tests hold XNNPACK to). The kernel library is
// chosen by TranslatorConfig::kernels; "backend" names where a translation runs (wasm, WebGPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tformer {

// Weights of one fully-connected layer in a kernel library's own layout. Opaque to layers.
class PackedLinear {
 public:
  PackedLinear(size_t in, size_t out, bool int8, bool relu) : in_(in), out_(out), int8_(int8), relu_(relu) {}
  virtual ~PackedLinear() = default;
  size_t in() const { return in_; }
  size_t out() const { return out_; }
  bool int8() const { return int8_; }  // int8 weights, activations quantized per call
  bool relu() const { return relu_; }  // outputs clamped at zero

 private:
  size_t in_, out_;
  bool int8_, relu_;
};

class Kernels {
 public:
  virtual ~Kernels() = default;
  virtual std::string name() const = 0;
  virtual int threads() const = 0;

  // y = x W^T + b for a weight W stored row-major [out, in] (PyTorch's nn.Linear layout) and an
  // optional bias [out]. The kernels copy what they need: the caller may free W and b after.
  // With `relu`, y = max(0, x W^T + b): the activation of a feed-forward layer applied as the
  // product's results are stored (XNNPACK's output clamp), instead of another pass over them.
  virtual std::unique_ptr<PackedLinear> pack_linear(const float* w, const float* bias, size_t in, size_t out,
                                                    bool relu = false) = 0;
  // The same product with int8 weights q [out, in] and one f32 scale per output row
  // (W ~ q * scale[row], docs/FORMAT.md's i8). Each call quantizes the rows of x to int8 with
  // their own scale and zero point (XNNPACK's "qd8", kernels/quantize.h), accumulates in int32 and
  // gives y = acc * row scale * weight scale + b in f32.
  virtual std::unique_ptr<PackedLinear> pack_linear_int8(const int8_t* w, const float* scales, const float* bias,
                                                         size_t in, size_t out, bool relu = false) = 0;
  // x: [rows, in], y: [rows, out], both row-major and not aliased.
  virtual void linear(const PackedLinear& w, const float* x, size_t rows, float* y) = 0;

  // Runs fn(i) for i in [0, n), possibly on several threads; used for attention and other
  // row-parallel work so that one thread pool serves the whole engine.
  virtual void parallel_for(size_t n, const std::function<void(size_t)>& fn) = 0;
};

std::unique_ptr<Kernels> make_reference_kernels();
std::unique_ptr<Kernels> make_xnnpack_kernels(int threads);

}  // namespace tformer
