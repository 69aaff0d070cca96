// Marian's YAML files, read with yaml-cpp's parser (the library Marian itself uses): options
// (decoder.yml, config.yml, the special:model.yml item) and DefaultVocab tables (*.vocab.yml).
//
// The documents are built from yaml-cpp's parse events rather than as a YAML::Node tree, so that
//  - aliases (*name) are refused: Marian's files never need them, and each one would repeat its
//    anchor's whole subtree (a few hundred bytes of nested aliases stand for billions of nodes);
//  - nesting is bounded here, with a message saying so, before yaml-cpp's own recursion limit;
//  - a vocabulary table of 64k pieces costs its strings, not a node tree many times its size.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tformer::marian {

using Json = nlohmann::ordered_json;

// Deeper than any Marian file (options nest two levels).
constexpr int kMaxYamlDepth = 32;

// A YAML mapping of options: mappings and sequences as JSON objects and arrays, every scalar as its
// text (MarianOptions types it when it is read, as Marian does), null as null. A key given twice:
// the last value counts. An empty document is an empty mapping. Throws tformer::Error naming
// `what` for text that is not UTF-8, invalid YAML, an alias, nesting deeper than kMaxYamlDepth
// or a document that is not a mapping.
Json parse_options(const std::string& text, const std::string& what);

// A DefaultVocab file (piece: id) -> the pieces by id. Every key is read as text (a piece `1` or
// `yes` stays text, as yaml-cpp gives it to Marian). Ids must be 0..n-1, each once.
std::vector<std::string> read_vocab_yml(const std::string& text, const std::string& what);

}  // namespace tformer::marian
