// What Translator::info() says about a loaded model: its architecture as the engine runs it, its
// metadata, its tensors and parameter count (the CLI's `info`, the package's `translator.info`).
#pragma once

#include "model/config.h"
#include "model/model_file.h"
#include "tformer/translator.h"

namespace tformer {

// `config`: the file's config as parsed (ModelConfig::from_json of its header).
ModelInfo describe_model(const ModelFile& file, const ModelConfig& config);

}  // namespace tformer
