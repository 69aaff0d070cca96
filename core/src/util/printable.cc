#include "util/printable.h"

#include <cstdio>

namespace tformer {
namespace {

// The length of the UTF-8 sequence at text[i] (its lead and continuation bytes well-formed), or 0.
size_t sequence_length(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const size_t n = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if (c < 0x80 || c > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char buf[8];
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += char(c);
      ++i;
      continue;
    }
    const size_t n = c >= 0x80 ? sequence_length(text, i) : 0;
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;  // U+0080..U+009F
    if (n && !c1) {
      out.append(text.substr(i, n));
      i += n;
    } else if (c1) {
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned char>(text[i + 1]));
      out += buf;
      i += 2;
    } else {  // a C0 control, DEL, or a byte outside a UTF-8 sequence (0x9B alone is CSI to some terminals)
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
      ++i;
    }
  }
  return out;
}

}  // namespace tformer
