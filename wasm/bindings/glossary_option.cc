#include "glossary_option.h"

#include <string>

#include "js_values.h"
#include "tformer/error.h"

namespace tformer::wasm {
namespace {

[[noreturn]] void refuse(const std::string& what, const val& got) {
  throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "option 'glossary': " + what + " (got " + describe(got) + ")");
}

}  // namespace

std::vector<GlossaryEntry> read_glossary(const val& value) {
  if (!is_array(value)) refuse("must be an array of {source, target?, caseSensitive?}", value);
  const size_t n = value["length"].as<size_t>();
  if (n > kMaxGlossaryEntries)
    throw Error(ErrorCode::kInvalidArgument, Phase::kRequest,
                "option 'glossary': " + std::to_string(n) + " entries, at most " + std::to_string(kMaxGlossaryEntries) + " are allowed");
  std::vector<GlossaryEntry> entries(n);
  for (size_t i = 0; i < n; ++i) {
    const val item = value[i];
    const std::string at = "item " + std::to_string(i) + ": ";
    if (!is_object(item)) refuse(at + "must be an object {source, target?, caseSensitive?}", item);
    const val keys = val::global("Object").call<val>("keys", item);
    for (size_t k = 0, nk = keys["length"].as<size_t>(); k < nk; ++k) {
      const std::string key = keys[k].as<std::string>();
      if (key != "source" && key != "target" && key != "caseSensitive")
        throw Error(ErrorCode::kInvalidArgument, Phase::kRequest,
                    "option 'glossary': " + at + "unknown key '" + key + "' (known: source, target, caseSensitive)");
    }
    const val source = item["source"], target = item["target"], case_sensitive = item["caseSensitive"];
    if (type_of(source) != "string") refuse(at + "'source' must be a string", source);
    entries[i].source = source.as<std::string>();
    if (!target.isUndefined()) {
      if (type_of(target) != "string") refuse(at + "'target' must be a string or left out", target);
      entries[i].target = target.as<std::string>();
    }
    if (!case_sensitive.isUndefined()) {
      if (type_of(case_sensitive) != "boolean") refuse(at + "'caseSensitive' must be true or false", case_sensitive);
      entries[i].case_sensitive = case_sensitive.as<bool>();
    }
  }
  return entries;
}

}  // namespace tformer::wasm
