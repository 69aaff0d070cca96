// Marian's options -> the engine's architecture, by models/tformer/marian.py's rules
// (config_from_options): what converts, what is refused (tformer::Error naming the option) and
// which options are ignored or unknown (a warning).
#pragma once

#include <string>
#include <vector>

#include "marian/yaml.h"

namespace tformer::marian {

struct Architecture {
  int d_model = 0, heads = 0, ffn_dim = 0, encoder_layers = 0, decoder_layers = 0;
  std::string norm;                // "post" or "pre"
  std::string activation;          // "relu" or "swish"
  std::string decoder_layer_type;  // "transformer" or "ssru"
  bool output_bias = true;
  std::string tie;  // Marian's embedding parameters: "all", "src", "target" or "none"
};

// `what` names the model file in messages. Warnings are appended to `warnings`.
Architecture architecture_from_options(const Json& options, const std::string& what, std::vector<std::string>& warnings);

// Option names in Marian's defaults table (they shape a transformer) and those read and ignored.
bool is_architecture_option(const std::string& key);
bool is_ignored_option(const std::string& key);

// Python's truthiness, str() and int() of an option's value (as marian.py applies them).
bool truthy(const Json& v);
std::string text_of(const Json& v);
long long int_of(const Json& v, const std::string& what, const std::string& option);
// Python's repr() of a value in messages ('relu', 2, True, [...]).
std::string repr(const Json& v);

}  // namespace tformer::marian
