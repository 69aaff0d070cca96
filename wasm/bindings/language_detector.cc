// Language detection with CLD2 (tformer/language_detector.h):
//   Module.detectLanguage(text) -> {
//     ranked: [{detectedLanguage, confidence}],  // as LanguageDetector.detect() returns it ("und" last)
//     languages: [{language, confidence, score}], // CLD2's top three, most of the text first
//     unknown, reliable, confident, characters,
//     spans: [{start, end, language}]             // runs of one language, in UTF-16 indices of text
//   }
//   Module.detectableLanguages() -> [string]      // canonical BCP 47 tags, sorted
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "tformer/language_detector.h"
#include "texts.h"

namespace tformer::wasm {
namespace {

// UTF-16 index of each UTF-8 byte offset of valid UTF-8 `text` (offsets.size() + 1 entries:
// the end maps too), so that JS can slice its own string by a span.
std::vector<size_t> utf16_indices(const std::string& text) {
  std::vector<size_t> index(text.size() + 1);
  size_t units = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    index[i] = units;
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;  // a code point above U+FFFF is a surrogate pair
  }
  index[text.size()] = units;
  return index;
}

val detect_language(const val& text) {
  return or_js_error("detectLanguage", [&] {
    if (type_of(text) != "string")
      throw Error(ErrorCode::kInvalidArgument, Phase::kDetect, "takes a string, got " + describe(text));
    const std::string utf8 = read_texts(text).at(0);  // refuses lone surrogates
    const LanguageDetection d = tformer::detect_language(utf8);
    const std::vector<size_t> index = utf16_indices(utf8);
    return object({
        {"ranked", array_of(ranked_languages(d), [](const DetectedLanguage& l) {
           return object({{"detectedLanguage", val(l.language)}, {"confidence", val(l.confidence)}});
         })},
        {"languages", array_of(d.languages, [](const DetectedLanguage& l) {
           return object({{"language", val(l.language)}, {"confidence", val(l.confidence)}, {"score", val(l.score)}});
         })},
        {"unknown", val(d.unknown)},
        {"reliable", val(d.reliable)},
        {"confident", val(d.confident)},
        {"characters", val(double(d.characters))},
        {"spans", array_of(d.spans, [&](const DetectedSpan& s) {
           return object({{"start", val(double(index.at(s.offset)))},
                          {"end", val(double(index.at(s.offset + s.length)))},
                          {"language", val(s.language)}});
         })},
    });
  });
}

val detectable_languages() { return string_array(tformer::detectable_languages()); }

}  // namespace

EMSCRIPTEN_BINDINGS(language_detector) {
  emscripten::function("detectLanguage", &detect_language);
  emscripten::function("detectableLanguages", &detectable_languages);
}

}  // namespace tformer::wasm
