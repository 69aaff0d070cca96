// The engine's plan of the encoder and the output projection (tformer/model_plan.h), for a
// backend in JS (WebGPU) that computes them: Translator.plan(), an object with camelCase keys;
// a product or norm the model does not have is null.
#pragma once

#include <emscripten/val.h>

#include "tformer/model_plan.h"

namespace tformer::wasm {

emscripten::val to_js(const ModelPlan& plan);

}  // namespace tformer::wasm
