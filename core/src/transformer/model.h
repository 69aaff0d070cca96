// A whole encoder-decoder model built from a .tfm file on a kernel library: embeddings (shared or not),
// positional encodings, the output projection (tied to the target embedding or not), the
// encoder and the incremental decoder.
#pragma once

#include <optional>

#include "kernels/kernels.h"
#include "layers/embedding.h"
#include "layers/linear.h"
#include "layers/output_projection.h"
#include "layers/positional_encoding.h"
#include "model/model_file.h"
#include "transformer/decoder.h"
#include "transformer/encoder.h"

namespace tformer {

class TransformerModel {
 public:
  TransformerModel(Kernels& kernels, const ModelFile& file);
  TransformerModel(const TransformerModel&) = delete;
  TransformerModel& operator=(const TransformerModel&) = delete;

  const ModelConfig& config() const { return config_; }
  const Encoder& encoder() const { return *encoder_; }
  const Decoder& decoder() const { return *decoder_; }
  const PositionalEncoding& positions() const { return positions_; }
  // The encoder and the output projection as built, for an external backend (WebGPU).
  ModelPlan plan() const;

 private:
  ModelConfig config_;
  Embedding source_embedding_, target_embedding_;
  // An untied output matrix, kept in memory only when the file has a lexical shortlist (whose
  // subsets are built from its rows); a tied one is the target embedding's table.
  std::vector<float> output_rows_, output_scales_;
  std::vector<int8_t> output_int8_rows_;
  OutputProjection output_;
  PositionalEncoding positions_;
  std::optional<Encoder> encoder_;
  std::optional<Decoder> decoder_;
};

}  // namespace tformer
