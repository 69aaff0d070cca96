#include "utf16_ranges.h"

namespace tformer::wasm {

using emscripten::val;

Utf16Offsets::Utf16Offsets(std::string_view utf8) {
  index_.reserve(utf8.size() + 1);
  uint32_t units = 0;
  for (size_t i = 0; i < utf8.size();) {
    const unsigned char lead = static_cast<unsigned char>(utf8[i]);
    // The engine's texts are valid UTF-8 (inputs are checked, SentencePiece writes it).
    const size_t bytes = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    for (size_t b = 0; b < bytes && i + b < utf8.size(); ++b) index_.push_back(units);
    units += bytes == 4 ? 2 : 1;  // a character past U+FFFF is a surrogate pair
    i += bytes;
  }
  index_.push_back(units);
}

val Utf16Offsets::range(const ByteRange& r) const {
  val pair = val::array();
  pair.call<void>("push", at(r.begin));
  pair.call<void>("push", at(r.end));
  return pair;
}

val Utf16Offsets::ranges(const std::vector<ByteRange>& rs) const {
  val out = val::array();
  for (const ByteRange& r : rs) out.call<void>("push", range(r));
  return out;
}

}  // namespace tformer::wasm
