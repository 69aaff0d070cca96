// UTF-8 validation: the engine refuses malformed input with the position of the first bad byte.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace tformer {

// Returns the byte offset of the first byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF count as malformed), or npos.
size_t find_invalid_utf8(std::string_view text);

// Throws a tformer::Error about input text `input` (kInvalidText, with the offset) when `text` is
// not valid UTF-8.
void require_valid_utf8(std::string_view text, size_t input);

// The number of characters (code points) of valid UTF-8 text.
size_t count_chars(std::string_view text);

// Throws a tformer::Error about input text `input` (kTextTooLong) when valid UTF-8 `text` has more
// than `limit` characters (0: no limit).
void require_at_most_chars(std::string_view text, size_t limit, size_t input);

// A character of a text and the bytes it takes there.
struct CodePoint {
  char32_t value;
  size_t begin, end;  // bytes
};

// The characters of `text`, which should be valid UTF-8 (the engine checks input first); a stray
// byte is taken as itself.
std::vector<CodePoint> decode_code_points(std::string_view text);

}  // namespace tformer
