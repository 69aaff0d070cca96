// The structure of the encoder and the output projection as the engine built them, for a backend
// outside the engine (WebGPU, driven from JS) to compute the same network from the same weights:
// which tensors each product reads (stacked how), where each layer norm sits, and the flags that
// change the math. The engine fills it from its own loaded layers, so the model's structure is
// written once, in C++; web/src/webgpu/encoder.js only turns it into dispatches.
#pragma once

#include <string>
#include <vector>

namespace tformer {

// One matrix product y = x W^T + b. Several weights are stacked into one product: the output row
// holds each weight's outputs one after another (e.g. q | k | v).
struct LinearPlan {
  std::vector<std::string> weights;  // tensor names, each [out / weights.size(), in]
  std::vector<std::string> biases;   // tensor names in the same order, or none (no bias)
  size_t in = 0, out = 0;            // out: all stacked rows
};

// y = (x - mean) / sqrt(var + eps) * weight + bias over each row.
struct NormPlan {
  std::string weight, bias;  // tensor names; empty when the model has no such norm
  float eps = 0.f;
};

struct EncoderLayerPlan {
  // "post" (the paper): x = LN(x + f(x)); "pre": x = x + f(LN(x)), for both sublayers.
  std::string norm;
  // Pre-norm only: the self-attention's keys and values read the raw x, its queries LN(x), so
  // the projection is q and kv (two products); otherwise one qkv product over one input.
  bool raw_self_kv = false;
  LinearPlan qkv;    // [q | k | v] rows, when !raw_self_kv
  LinearPlan q, kv;  // q rows and [k | v] rows, when raw_self_kv
  LinearPlan o;      // the attention's output projection
  NormPlan self_attention_norm;
  LinearPlan ffn_w1, ffn_w2;  // w2(activation(w1 x))
  std::string activation;     // "relu" or "swish"
  NormPlan ffn_norm;
};

struct ModelPlan {
  int d_model = 0, heads = 0, ffn_dim = 0;
  // The source embedding: rows of this [vocab, d_model] tensor times embedding_scale, plus the
  // positional encodings (Translator::positions()).
  std::string source_embedding;
  float embedding_scale = 1.f;
  std::vector<EncoderLayerPlan> encoder_layers;
  NormPlan encoder_final_norm;  // pre-norm models: after the last layer; else empty names
  // logits = hidden W^T + b; W is the target embedding where the model ties them.
  LinearPlan output;
};

}  // namespace tformer
