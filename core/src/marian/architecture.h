// Marian's options -> the engine's architecture: what converts, what is refused (tformer::Error
// naming the option) and what draws a warning (models/MARIAN-IMPORT.md).
#pragma once

#include <string>
#include <vector>

#include "marian/options.h"

namespace tformer::marian {

struct Architecture {
  int d_model = 0, heads = 0, ffn_dim = 0, encoder_layers = 0, decoder_layers = 0;
  std::string norm;                // "post" or "pre"
  std::string activation;          // "relu" or "swish"
  std::string decoder_layer_type;  // "transformer" or "ssru"
  bool output_bias = true;
  std::string tie;  // Marian's embedding parameters: "all", "src", "target" or "none"
};

// Warnings (unknown options, ignored features) are appended to `warnings`.
Architecture architecture_from_options(const MarianOptions& options, std::vector<std::string>& warnings);

}  // namespace tformer::marian
