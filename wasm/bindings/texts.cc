#include "texts.h"

#include "js_values.h"
#include "tformer/error.h"

namespace tformer::wasm {
namespace {

void check_surrogates(const val& text, size_t index) {
  static const val lone = val::global("RegExp").new_(
      val(std::string("[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]")));
  const int at = text.call<int>("search", lone);
  if (at >= 0)
    throw Error::about_input(ErrorCode::kInvalidText, index,
                             "is not valid Unicode: lone UTF-16 surrogate at index " + std::to_string(at));
}

}  // namespace

std::vector<std::string> read_texts(const val& texts) {
  std::vector<std::string> inputs;
  if (type_of(texts) == "string") {
    check_surrogates(texts, 0);
    inputs.push_back(texts.as<std::string>());
    return inputs;
  }
  if (!is_array(texts)) throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "takes a string or an array of strings");
  const size_t n = texts["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) {
    const val item = texts[i];
    if (type_of(item) != "string")
      throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "item " + std::to_string(i) + " is not a string");
    inputs.push_back(item.as<std::string>());
  }
  for (size_t i = 0; i < n; ++i) check_surrogates(texts[i], i);
  return inputs;
}

}  // namespace tformer::wasm
