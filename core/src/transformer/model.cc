#include "transformer/model.h"

namespace tformer {

TransformerModel::TransformerModel(Kernels& kernels, const ModelFile& file) : config_(file.config()) {
  const ModelConfig& c = config_;
  const size_t V = size_t(c.vocab_size), d = size_t(c.d_model);
  if (c.tied_embeddings == TiedEmbeddings::kAll) {
    source_embedding_ = Embedding(file, "embedding.weight", V, d);
  } else {
    source_embedding_ = Embedding(file, "source_embedding.weight", V, d);
    target_embedding_ = Embedding(file, "target_embedding.weight", V, d);
  }
  const Embedding& target = c.tied_embeddings == TiedEmbeddings::kAll ? source_embedding_ : target_embedding_;
  std::vector<float> bias = c.output_bias ? file.floats("output_bias", {int64_t(V)}) : std::vector<float>();
  if (c.tied_embeddings == TiedEmbeddings::kNone) {
    const std::vector<int64_t> shape = {int64_t(V), int64_t(d)};
    const bool keep = file.has("shortlist");
    if (file.is_int8("output.weight")) {
      ModelFile::Int8Rows w = file.int8_rows("output.weight", shape);
      output_scales_ = std::move(w.scales);
      if (keep) output_int8_rows_.assign(w.values, w.values + V * d);
      output_ = OutputProjection(kernels, keep ? output_int8_rows_.data() : w.values, output_scales_.data(),
                                 std::move(bias), d, V);
    } else {
      output_rows_ = file.floats("output.weight", shape);
      output_ = OutputProjection(kernels, output_rows_.data(), std::move(bias), d, V);
    }
    if (!keep) {  // packed by the kernels: the rows are not read again
      output_.forget_rows();
      std::vector<float>().swap(output_rows_);
      std::vector<float>().swap(output_scales_);
    }
  } else if (target.int8()) {
    output_ = OutputProjection(kernels, target.int8_data(), target.scales(), std::move(bias), d, V);  // logits = x E^T + b, int8
  } else {
    output_ = OutputProjection(kernels, target.data(), std::move(bias), d, V);  // logits = x E^T + b
  }
  output_.full().set_tensor_names({c.tied_embeddings == TiedEmbeddings::kNone ? std::string("output.weight") : target.name()},
                           c.output_bias ? std::vector<std::string>{"output_bias"} : std::vector<std::string>{});
  positions_ = PositionalEncoding(c.positional_encoding, c.max_positions, c.d_model);
  encoder_.emplace(kernels, file, config_, source_embedding_, positions_);
  decoder_.emplace(kernels, file, config_, target, positions_, output_);
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
  p.output = output_.full().plan();
  return p;
}

}  // namespace tformer
