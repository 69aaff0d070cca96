// One sublayer with its residual connection and layer normalisation, in the model's norm placement:
//   post-norm (the paper):  x = LN(x + f(x))
//   pre-norm:               x = x + f(LN(x))
// The encoder's and the decoder's sublayers (self-attention or SSRU, cross-attention, feed-forward)
// all go through residual_sublayer, so the placement is written once.
#pragma once

#include <cstddef>

#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "layers/layer_norm.h"
#include "model/config.h"
#include "util/raw_buffer.h"

namespace tformer {

// Rows the sublayers overwrite before reading: kept by the caller across layers and steps.
struct ResidualBuffers {
  RawBuffer<float> normed;  // pre-norm: LN(x)
  RawBuffer<float> out;     // f's output
};

// x [rows, d] is updated in place. sublayer(input, raw, out) writes its rows [rows, d] to out;
// `input` is what the sublayer reads (LN(x) in pre-norm, x in post-norm) and `raw` is x itself,
// which a pre-norm self-attention reads its keys and values from when the model says so
// (prenorm_raw_self_kv).
template <typename Sublayer>
void residual_sublayer(Kernels& kernels, Norm placement, const LayerNorm& norm, float* x, size_t rows, size_t d,
                       ResidualBuffers& buffers, Sublayer&& sublayer) {
  buffers.out.ensure(rows * d);
  float* out = buffers.out.data();
  if (placement == Norm::kPre) {
    buffers.normed.ensure(rows * d);
    norm(x, rows, buffers.normed.data());
    sublayer(static_cast<const float*>(buffers.normed.data()), static_cast<const float*>(x), out);
    ops::add_inplace(x, out, rows * d);
  } else {
    sublayer(static_cast<const float*>(x), static_cast<const float*>(x), out);
    norm.add_and_normalize(kernels, x, out, rows);
  }
}

}  // namespace tformer
