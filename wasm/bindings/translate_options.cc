#include "translate_options.h"

#include <emscripten/bind.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "glossary_option.h"
#include "js_values.h"
#include "tformer/error.h"

namespace tformer::wasm {
namespace {

// Each key and the field it sets; the field's type says what the value must be: int an integer,
// size_t a non-negative integer, float a finite number, bool true or false.
using Field = std::variant<int RequestOptions::*, size_t RequestOptions::*, float RequestOptions::*, bool RequestOptions::*>;
struct Key {
  const char* name;
  Field field;
};
const Key kKeys[] = {
    {"beam", &RequestOptions::beam_size},
    {"nbest", &RequestOptions::nbest},
    {"lengthPenalty", &RequestOptions::length_penalty},
    {"maxLengthRatio", &RequestOptions::max_length_ratio},
    {"maxLengthOffset", &RequestOptions::max_length_offset},
    {"maxLength", &RequestOptions::max_length},
    {"returnAlignment", &RequestOptions::return_alignment},
    {"returnScores", &RequestOptions::return_scores},
    {"splitSentences", &RequestOptions::split_sentences},
    {"maxBatchTokens", &RequestOptions::max_batch_tokens},
    {"maxInputChars", &RequestOptions::max_input_chars},
    {"maxSentenceTokens", &RequestOptions::max_sentence_tokens},
    {"passthrough", &RequestOptions::passthrough},
    {"repetitionGuard", &RequestOptions::repetition_guard},
    {"html", &RequestOptions::html},
    {"htmlTranslateCode", &RequestOptions::html_translate_code},
    {"shortlist", &RequestOptions::shortlist},
    {"confidence", &RequestOptions::confidence},
};

[[noreturn]] void refuse(const char* key, const char* must, const val& got) {
  throw Error(ErrorCode::kInvalidArgument, Phase::kRequest,
              std::string("option '") + key + "' must be " + must + " (got " + describe(got) + ")");
}

double number_of(const char* key, const val& v, const char* must) {
  if (type_of(v) != "number") refuse(key, must, v);
  const double x = v.as<double>();
  if (!std::isfinite(x)) refuse(key, must, v);
  return x;
}

void read(const char* key, const val& v, RequestOptions& o, int RequestOptions::*field) {
  const double x = number_of(key, v, "an integer");
  if (x != std::floor(x) || x < -2147483648.0 || x > 2147483647.0) refuse(key, "an integer", v);
  o.*field = int(x);
}

void read(const char* key, const val& v, RequestOptions& o, size_t RequestOptions::*field) {
  const double x = number_of(key, v, "a non-negative integer");
  if (x != std::floor(x) || x < 0 || x > double(std::numeric_limits<size_t>::max())) refuse(key, "a non-negative integer", v);
  o.*field = size_t(x);
}

void read(const char* key, const val& v, RequestOptions& o, float RequestOptions::*field) {
  o.*field = float(number_of(key, v, "a number"));
}

void read(const char* key, const val& v, RequestOptions& o, bool RequestOptions::*field) {
  if (type_of(v) != "boolean") refuse(key, "true or false", v);
  o.*field = v.as<bool>();
}

val value_of(const RequestOptions& o, const Field& field) {
  return std::visit(
      [&](auto member) {
        const auto x = o.*member;
        if constexpr (std::is_same_v<decltype(x), const bool>) return val(x);
        else return val(double(x));
      },
      field);
}

std::string key_list() {
  std::string list;
  for (const Key& k : kKeys) list += (list.empty() ? "" : ", ") + std::string(k.name);
  return list + ", glossary";
}

// Every key at its default: the engine's own TranslateOptions.
val default_options() {
  const RequestOptions defaults;
  val o = val::object();
  for (const Key& k : kKeys) o.set(k.name, value_of(defaults, k.field));
  o.set("glossary", val::array());
  return o;
}

val limits() { return object({{"maxBeam", val(kMaxBeamSize)}, {"maxThreads", val(kMaxThreads)}}); }

}  // namespace

RequestOptions read_options(const val& options) {
  RequestOptions o;
  if (options.isUndefined() || options.isNull()) return o;
  if (!is_object(options))
    throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "options must be an object (got " + describe(options) + ")");
  const val keys = val::global("Object").call<val>("keys", options);
  const size_t n = keys["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) {
    const std::string name = keys[i].as<std::string>();
    if (name == "glossary") {  // not a number or flag: glossary_option.h reads it
      if (!options[name].isUndefined()) o.glossary = read_glossary(options[name]);
      continue;
    }
    const Key* key = nullptr;
    for (const Key& k : kKeys)
      if (name == k.name) key = &k;
    if (!key)
      throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "unknown option '" + name + "' (known: " + key_list() + ")");
    const val v = options[name];
    if (v.isUndefined()) continue;  // as if left out
    std::visit([&](auto member) { read(key->name, v, o, member); }, key->field);
  }
  return o;
}

EMSCRIPTEN_BINDINGS(translate_options) {
  emscripten::function("defaultOptions", &default_options);
  emscripten::function("limits", &limits);
}

}  // namespace tformer::wasm
