#include "transformer/model.h"

namespace tformer {

TransformerModel::TransformerModel(Backend& backend, const ModelFile& file) : config_(file.config()) {
  const ModelConfig& c = config_;
  const size_t V = size_t(c.vocab_size), d = size_t(c.d_model);
  if (c.tied_embeddings == TiedEmbeddings::kAll) {
    source_embedding_ = Embedding(file, "embedding.weight", V, d);
  } else {
    source_embedding_ = Embedding(file, "source_embedding.weight", V, d);
    target_embedding_ = Embedding(file, "target_embedding.weight", V, d);
  }
  const Embedding& target = c.tied_embeddings == TiedEmbeddings::kAll ? source_embedding_ : target_embedding_;
  const std::vector<float> bias = c.output_bias ? file.floats("output_bias", {int64_t(V)}) : std::vector<float>();
  const float* b = c.output_bias ? bias.data() : nullptr;
  if (c.tied_embeddings == TiedEmbeddings::kNone) {
    if (file.is_int8("output.weight")) {
      const ModelFile::Int8Rows w = file.int8_rows("output.weight", {int64_t(V), int64_t(d)});
      output_ = Linear(backend, w.values, w.scales.data(), b, d, V);
    } else {
      const std::vector<float> w = file.floats("output.weight", {int64_t(V), int64_t(d)});
      output_ = Linear(backend, w.data(), b, d, V);
    }
  } else if (target.int8()) {
    output_ = Linear(backend, target.int8_data(), target.scales(), b, d, V);  // logits = x E^T + b, int8
  } else {
    output_ = Linear(backend, target.data(), b, d, V);  // logits = x E^T + b
  }
  output_.set_tensor_names({c.tied_embeddings == TiedEmbeddings::kNone ? std::string("output.weight") : target.name()},
                           c.output_bias ? std::vector<std::string>{"output_bias"} : std::vector<std::string>{});
  positions_ = PositionalEncoding(c.positional_encoding, c.max_positions, c.d_model);
  encoder_.emplace(backend, file, config_, source_embedding_, positions_);
  decoder_.emplace(backend, file, config_, target, positions_, output_);
}

ModelPlan TransformerModel::plan() const {
  ModelPlan p;
  p.d_model = config_.d_model;
  p.heads = config_.heads;
  p.ffn_dim = config_.ffn_dim;
  p.source_embedding = source_embedding_.name();
  p.embedding_scale = source_embedding_.scale();
  p.encoder_layers = encoder_->layer_plans();
  p.encoder_final_norm = encoder_->final_norm_plan();
  p.output = output_.plan();
  return p;
}

}  // namespace tformer
