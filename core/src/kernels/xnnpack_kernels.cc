// Kernels on XNNPACK's fully-connected operators (create once at load -> reshape -> setup -> run
// per call), with one pthreadpool shared by the matrix products and the engine's own loops.
#if defined(__EMSCRIPTEN_PTHREADS__)
#include <emscripten.h>
#endif
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernels.h"
#include "tformer/error.h"

namespace tformer {
namespace {

// XNNPACK's statuses in words: "status 6" alone does not tell a user that memory ran out.
const char* status_words(xnn_status status) {
  switch (status) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "XNNPACK is not initialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
    case xnn_status_reallocation_required: return "reallocation required";
    case xnn_status_deprecated: return "deprecated operation";
  }
  return "unknown status";
}

void check(xnn_status status, const char* what) {
  if (status != xnn_status_success)
    throw Error(std::string("XNNPACK ") + what + " failed: " + status_words(status) + " (status " +
                std::to_string(int(status)) + ")");
}

void initialize_xnnpack() {
  static std::once_flag once;
  static xnn_status status = xnn_status_success;
  std::call_once(once, [] { status = xnn_initialize(nullptr); });
  check(status, "initialisation (is the CPU supported?)");
}

// How the pool's threads wait between two parallel calls. pthreadpool's workers spin for a million
// iterations before they sleep, on the bet that each has a core of its own. In a browser that bet
// is often lost: the pool is sized from navigator.hardwareConcurrency, which WebKit reports as 4 on
// a 2-core machine, and a page shares the cores with everything else. A parallel call ends only
// when every worker has seen it, so a worker the OS has descheduled while the others spin costs a
// time slice (milliseconds) per call, thousands of times per batch: WebKit with 4 threads on 2 busy
// cores ran a batch 15-140x slower than with 2, Chromium with 8 threads 2.1x. In wasm the workers
// sleep (a futex) as soon as a call is done: a sleeping worker leaves its core to the one with
// work, and a pool larger than the cores costs about what the cores can give (Chromium, 8 threads
// on 2 loaded cores: 1.15x the time of 2; docs/BENCHMARKS.md). Native builds keep spinning: a
// process there sees its real cores.
#if defined(__EMSCRIPTEN__)
constexpr uint32_t kOperatorFlags = XNN_FLAG_YIELD_WORKERS;
constexpr uint32_t kPoolFlags = PTHREADPOOL_FLAG_YIELD_WORKERS;
#else
constexpr uint32_t kOperatorFlags = 0;
constexpr uint32_t kPoolFlags = 0;
#endif

class XnnpackLinear : public PackedLinear {
 public:
  XnnpackLinear(size_t in, size_t out, bool relu, xnn_operator_t op) : PackedLinear(in, out, false, relu), op_(op) {}
  ~XnnpackLinear() override { xnn_delete_operator(op_); }
  xnn_operator_t op_;
};

// int8 weights: a convert operator quantizes each row of the input (qd8), the fully-connected
// operator multiplies by the int8 weights it packed at creation. One convert operator per layer
// keeps each layer's reshape state apart, like the f32 operators.
class XnnpackLinearInt8 : public PackedLinear {
 public:
  XnnpackLinearInt8(size_t in, size_t out, bool relu, xnn_operator_t convert, xnn_operator_t fc)
      : PackedLinear(in, out, true, relu), convert_(convert), fc_(fc) {}
  ~XnnpackLinearInt8() override {
    xnn_delete_operator(convert_);
    xnn_delete_operator(fc_);
  }
  xnn_operator_t convert_, fc_;
};

#if defined(__EMSCRIPTEN_PTHREADS__)
// Workers left in Emscripten's pool; -1 where unknown (called from a thread other than the main one).
EM_JS(int, tformer_free_workers, (), {
  return typeof PThread !== 'undefined' && PThread.unusedWorkers ? PThread.unusedWorkers.length : -1;
});
#endif

class XnnpackKernels : public Kernels {
 public:
  explicit XnnpackKernels(int threads) : threads_(threads < 1 ? 1 : threads) {
    initialize_xnnpack();
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
    threads_ = 1;  // the single-threaded wasm build: a request for more threads runs on one
#endif
    if (threads_ > 1) {
#if defined(__EMSCRIPTEN_PTHREADS__)
      // pthreadpool does not check pthread_create's EAGAIN and would wait forever for a thread
      // that never starts, so the pool of preloaded Workers is checked first.
      const int free_workers = tformer_free_workers();
      if (free_workers >= 0 && free_workers < threads_ - 1)
        throw Error(ErrorCode::kResources, Phase::kLoad,
                    "cannot start " + std::to_string(threads_) + " threads: the module's pool of workers is used up (" +
                        std::to_string(free_workers) + " free); delete unused translators");
#endif
      pool_ = pthreadpool_create(static_cast<size_t>(threads_));
      if (!pool_)
        throw Error(ErrorCode::kResources, Phase::kLoad, "cannot create a thread pool of " + std::to_string(threads_) + " threads");
      threads_ = static_cast<int>(pthreadpool_get_threads_count(pool_));
    }
  }
  ~XnnpackKernels() override {
    if (pool_) pthreadpool_destroy(pool_);
  }

  std::string name() const override { return "xnnpack"; }
  int threads() const override { return threads_; }

  std::unique_ptr<PackedLinear> pack_linear(const float* w, const float* b, size_t in, size_t out,
                                            bool relu) override {
    xnn_operator_t op = nullptr;
    check(xnn_create_fully_connected_nc_f32(in, out, in, out, w, b, relu ? 0.f : -INFINITY, INFINITY, kOperatorFlags,
                                            nullptr, nullptr, &op),
          "fully-connected creation");
    return std::make_unique<XnnpackLinear>(in, out, relu, op);
  }

  std::unique_ptr<PackedLinear> pack_linear_int8(const int8_t* w, const float* scales, const float* b, size_t in,
                                                 size_t out, bool relu) override {
    xnn_operator_t convert = nullptr, fc = nullptr;
    check(xnn_create_convert_nc_f32_qd8(0, &convert), "f32 -> qd8 convert creation");
    const xnn_status status = xnn_create_fully_connected_nc_qd8_f32_qc8w(
        in, out, in, out, scales, w, b, relu ? 0.f : -INFINITY, INFINITY, kOperatorFlags, nullptr, nullptr, &fc);
    if (status != xnn_status_success) xnn_delete_operator(convert);
    check(status, "int8 fully-connected creation");
    return std::make_unique<XnnpackLinearInt8>(in, out, relu, convert, fc);
  }

  void linear(const PackedLinear& packed, const float* x, size_t rows, float* y) override {
    if (rows == 0) return;
    x = readable_input(x, rows * packed.in());
    if (packed.int8()) return linear_int8(static_cast<const XnnpackLinearInt8&>(packed), x, rows, y);
    xnn_operator_t op = static_cast<const XnnpackLinear&>(packed).op_;
    check(xnn_reshape_fully_connected_nc_f32(op, rows, pool_), "fully-connected reshape");
    check(xnn_setup_fully_connected_nc_f32(op, x, y), "fully-connected setup");
    check(xnn_run_operator(op, pool_), "fully-connected run");
  }

  // XNNPACK may read up to XNN_EXTRA_BYTES past the end of an operator's input (its documented
  // contract: the c4 kernels it picks for narrow layers load a row's last floats four at a time).
  // The engine's activations are plain vectors without that slack. Reading past their end is
  // harmless within the same page, but faults where the input ends at the last bytes of a mapping
  // (seen under AddressSanitizer's allocator; a wasm memory's end is such a place too). Only such
  // an input is copied, into scratch with the slack.
  const float* readable_input(const float* x, size_t count) {
    constexpr uintptr_t kPage = 4096;  // the smallest page size (wasm's 64 KiB pages are multiples)
    const uintptr_t end = reinterpret_cast<uintptr_t>(x + count);
    if ((end - 1) / kPage == (end - 1 + XNN_EXTRA_BYTES) / kPage) return x;
    padded_input_.resize(count + XNN_EXTRA_BYTES / sizeof(float));
    std::copy(x, x + count, padded_input_.begin());
    return padded_input_.data();
  }

  void linear_int8(const XnnpackLinearInt8& p, const float* x, size_t rows, float* y) {
    const size_t in = p.in();
    // XNNPACK reads a little past the ends of both buffers.
    if (quantized_.size() < rows * in + XNN_EXTRA_BYTES) quantized_.resize(rows * in + XNN_EXTRA_BYTES);
    if (row_params_.size() < rows + XNN_EXTRA_QUANTIZATION_PARAMS)
      row_params_.resize(rows + XNN_EXTRA_QUANTIZATION_PARAMS);
    // The quantization runs on the calling thread: one pass over rows x in floats costs less than
    // waking the pool's threads for it (a decoder step has ~15 int8 products of a few hundred rows).
    check(xnn_reshape_convert_nc_f32_qd8(p.convert_, rows, in, in, in, nullptr), "f32 -> qd8 convert reshape");
    check(xnn_setup_convert_nc_f32_qd8(p.convert_, x, quantized_.data(), row_params_.data()),
          "f32 -> qd8 convert setup");
    check(xnn_run_operator(p.convert_, nullptr), "f32 -> qd8 convert run");
    check(xnn_reshape_fully_connected_nc_qd8_f32_qc8w(p.fc_, rows, pool_), "int8 fully-connected reshape");
    check(xnn_setup_fully_connected_nc_qd8_f32_qc8w(p.fc_, quantized_.data(), y, row_params_.data()),
          "int8 fully-connected setup");
    check(xnn_run_operator(p.fc_, pool_), "int8 fully-connected run");
  }

  void parallel_for(size_t n, const std::function<void(size_t)>& fn) override {
    if (!pool_ || n < 2) {
      for (size_t i = 0; i < n; ++i) fn(i);
      return;
    }
    pthreadpool_parallelize_1d(
        pool_, [](void* ctx, size_t i) { (*static_cast<const std::function<void(size_t)>*>(ctx))(i); },
        const_cast<std::function<void(size_t)>*>(&fn), n, kPoolFlags);
  }

 private:
  int threads_;
  pthreadpool_t pool_ = nullptr;
  // Scratch of the int8 path: quantized input rows and their parameters (grown, never shrunk).
  std::vector<int8_t> quantized_;
  // An input copied with XNNPACK's slack after it (readable_input; grown, never shrunk).
  std::vector<float> padded_input_;
  std::vector<xnn_quantization_params> row_params_;
};

}  // namespace

std::unique_ptr<Kernels> make_xnnpack_kernels(int threads) { return std::make_unique<XnnpackKernels>(threads); }

}  // namespace tformer
