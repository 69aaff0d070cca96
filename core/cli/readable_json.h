// JSON values as a reader wants them on a terminal (`tformer info`'s config and metadata): one
// "key: value" line per field, nested objects indented under their key, lists of plain values
// joined by commas, long text wrapped, instead of one line of JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tformer::cli {

// The lines of `value` (an object: one line per key, its keys aligned), each starting with
// `indent` spaces, text wrapped at `width` columns. Ends with a newline unless empty.
std::string readable_json(const nlohmann::json& value, int indent = 2, int width = 100);

}  // namespace tformer::cli
