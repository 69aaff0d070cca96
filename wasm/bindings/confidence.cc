#include "confidence.h"

#include <string>
#include <vector>

#include "js_values.h"

namespace tformer::wasm {
namespace {

// For each byte offset of valid UTF-8 `text` (and its end), the UTF-16 index it falls at: a
// character of 4 bytes is 2 code units in JS, one of fewer bytes 1.
std::vector<size_t> utf16_indices(const std::string& text) {
  std::vector<size_t> at(text.size() + 1);
  size_t units = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    at[i] = units;
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;  // the lead byte of a character counts it
  }
  at[text.size()] = units;
  return at;
}

}  // namespace

val confidence_to_js(const SentenceTranslation& s) {
  const std::string& text = s.hypotheses.at(0).text;
  const std::vector<size_t> at = utf16_indices(text);
  const SentenceConfidence& c = s.confidence;
  return object({{"score", val(c.score)}, {"words", array_of(c.words, [&](const WordConfidence& w) {
                                             return object({{"text", val(text.substr(w.begin, w.end - w.begin))},
                                                            {"start", val(double(at[w.begin]))},
                                                            {"end", val(double(at[w.end]))},
                                                            {"confidence", val(w.confidence)}});
                                           })}});
}

}  // namespace tformer::wasm
