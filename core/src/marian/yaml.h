// Marian's YAML files, read with yaml-cpp (the library Marian itself uses): options (decoder.yml,
// config.yml, the special:model.yml item) and DefaultVocab tables (*.vocab.yml).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tformer::marian {

using Json = nlohmann::ordered_json;

// A YAML mapping of options as JSON, its plain scalars typed as PyYAML's safe_load types them
// (YAML 1.1: true/yes/on are booleans, 12 an integer, 1e-6 a float, ~ null; quoted: strings), so
// that both importers see the same values. An empty document is an empty mapping. Throws
// tformer::Error naming `what` for invalid YAML or a document that is not a mapping.
Json parse_options(const std::string& text, const std::string& what);

// A DefaultVocab file (piece: id) -> the pieces by id. Every key is read as text (a piece `1` or
// `yes` stays text, as yaml-cpp gives it to Marian). Ids must be 0..n-1, each once.
std::vector<std::string> read_vocab_yml(const std::string& text, const std::string& what);

}  // namespace tformer::marian
