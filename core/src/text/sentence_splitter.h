// Splits a paragraph into sentences for translation, the way Bergamot's ssplit does in spirit:
// after ., !, ? or … (and any closing quotes or brackets) followed by white space and a
// sentence start (upper-case letter, digit, opening quote or bracket), unless the word before
// the period is a known abbreviation, a single letter or a number (German ordinals: "am 3. Mai").
// Line breaks always end a sentence.
#pragma once

#include <string>
#include <string_view>
#include <vector>
#include <cstddef>

namespace tformer {

struct SentenceSpan {
  size_t begin, end;  // byte offsets into the paragraph, white space trimmed
};

std::vector<SentenceSpan> split_sentences(std::string_view paragraph);

// The same, where a sentence may also start at each of `starts` (sorted byte offsets: where an
// element of an HTML fragment begins, whose text need not look like a sentence start: code).
std::vector<SentenceSpan> split_sentences(std::string_view paragraph, const std::vector<size_t>& starts);

}  // namespace tformer
