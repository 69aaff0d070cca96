// A sentence's word confidence as JS gets it (TranslateOptions::confidence):
//   {score, words: [{text, start, end, confidence}]}
// where start and end are JS string indices (UTF-16 code units) in the sentence's `text`, as the
// engine's UTF-8 byte offsets become (tformer/confidence.h).
#pragma once

#include <emscripten/val.h>

#include "tformer/translator.h"

namespace tformer::wasm {

emscripten::val confidence_to_js(const SentenceTranslation& sentence);

}  // namespace tformer::wasm
