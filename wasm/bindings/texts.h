// A request's texts as JS gives them: a string or an array of strings, checked.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

namespace tformer::wasm {

// The texts as UTF-8. Throws a tformer::Error for anything but a string or an array of strings
// (kInvalidArgument), and for a text with a lone UTF-16 surrogate (kInvalidText, naming the text
// and the index): Embind would pair it with whatever follows and turn broken text into wrong
// characters silently, where native refuses malformed UTF-8.
std::vector<std::string> read_texts(const emscripten::val& texts);

}  // namespace tformer::wasm
