#include "model_plan.h"

#include "js_values.h"

namespace tformer::wasm {
namespace {

val to_js(const LinearPlan& p) {
  if (p.weights.empty()) return val::null();
  return object({{"weights", string_array(p.weights)},
                 {"biases", string_array(p.biases)},
                 {"in", val(double(p.in))},
                 {"out", val(double(p.out))}});
}

val to_js(const NormPlan& p) {
  if (p.weight.empty()) return val::null();
  return object({{"weight", val(p.weight)}, {"bias", val(p.bias)}, {"eps", val(p.eps)}});
}

val to_js(const EncoderLayerPlan& l) {
  return object({{"norm", val(l.norm)},
                 {"rawSelfKv", val(l.raw_self_kv)},
                 {"qkv", to_js(l.qkv)},
                 {"q", to_js(l.q)},
                 {"kv", to_js(l.kv)},
                 {"o", to_js(l.o)},
                 {"selfAttentionNorm", to_js(l.self_attention_norm)},
                 {"ffnW1", to_js(l.ffn_w1)},
                 {"ffnW2", to_js(l.ffn_w2)},
                 {"activation", val(l.activation)},
                 {"ffnNorm", to_js(l.ffn_norm)}});
}

}  // namespace

val to_js(const ModelPlan& p) {
  return object({{"dModel", val(p.d_model)},
                 {"heads", val(p.heads)},
                 {"ffnDim", val(p.ffn_dim)},
                 {"sourceEmbedding", val(p.source_embedding)},
                 {"embeddingScale", val(p.embedding_scale)},
                 {"encoderLayers", array_of(p.encoder_layers, [](const EncoderLayerPlan& l) { return to_js(l); })},
                 {"encoderFinalNorm", to_js(p.encoder_final_norm)},
                 {"output", to_js(p.output)}});
}

}  // namespace tformer::wasm
