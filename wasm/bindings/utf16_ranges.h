// Byte ranges of UTF-8 text (the engine's, tformer/annotated_text.h) as ranges of the JS string
// that Embind makes of that text. JS strings index UTF-16 code units: "ü" is 2 bytes but 1 unit,
// "😀" 4 bytes but 2 units, so a byte offset is no index into the string past the first non-ASCII
// character. The conversion happens here, once, where the UTF-8 bytes are still at hand: the
// package and its users only ever see string indices (`text.slice(begin, end)`).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "tformer/annotated_text.h"

namespace tformer::wasm {

class Utf16Offsets {
 public:
  explicit Utf16Offsets(std::string_view utf8);
  // The index in the JS string of byte `at` of the UTF-8 text (a byte inside a character: the
  // character's own index; past the end: the string's length).
  uint32_t at(size_t byte) const { return byte < index_.size() ? index_[byte] : index_.back(); }
  // [[begin, end], ...]: the ranges as string indices.
  emscripten::val ranges(const std::vector<ByteRange>& ranges) const;
  emscripten::val range(const ByteRange& r) const;

 private:
  std::vector<uint32_t> index_;  // per byte, and one past the end
};

}  // namespace tformer::wasm
