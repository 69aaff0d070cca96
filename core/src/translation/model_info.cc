#include "translation/model_info.h"

#include <nlohmann/json.hpp>

namespace tformer {

ModelInfo describe_model(const ModelFile& file, const ModelConfig& c) {
  ModelInfo info;
  // As stored, with the defaults of absent keys filled in: a reader (the WebGPU backend) sees
  // the architecture the engine runs.
  nlohmann::json config = c.to_json();
  config.update(file.header()["config"]);
  info.config_json = config.dump();
  info.metadata_json = file.header().contains("metadata") ? file.header()["metadata"].dump() : "{}";
  info.file_bytes = file.size();
  info.vocab_size = c.vocab_size;
  info.d_model = c.d_model;
  info.heads = c.heads;
  info.ffn_dim = c.ffn_dim;
  info.encoder_layers = c.encoder_layers;
  info.decoder_layers = c.decoder_layers;
  for (const TensorEntry& t : file.tensors()) {
    info.tensors.push_back({t.name, dtype_name(t.dtype), t.shape, t.nbytes});
    // Parameters are weights: not the tokenizer's bytes (u8) nor int8's per-row scales.
    const bool is_scales = t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".scales") == 0;
    if (t.dtype != DType::kU8 && !is_scales) info.parameters += uint64_t(t.elements());
  }
  return info;
}

}  // namespace tformer
