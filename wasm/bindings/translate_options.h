// A request's options as JS gives them: an object whose keys are all optional. Each key given is
// checked and read into the engine's options; each key left out keeps the engine's default
// (tformer::TranslateOptions), which is thus stated once, in C++. Keys are the TranslateOptions
// fields in camelCase, with two renamed (beam, returnAlignment) and one of the bindings' own:
//   {beam, nbest, lengthPenalty, maxLengthRatio, maxLengthOffset, maxLength, returnAlignment,
//    returnScores, splitSentences, maxBatchTokens, maxInputChars, maxSentenceTokens, passthrough,
//    repetitionGuard, html, htmlTranslateCode, shortlist, glossary, confidence}
// glossary: [{source, target?, caseSensitive?}] (glossary_option.h).
// returnScores (default true): results carry each hypothesis' score.
//   Module.defaultOptions(): that object with every key at its default.
//   Module.limits(): {maxBeam, maxThreads}: the engine's bounds, which the npm package checks up front.
#pragma once

#include <emscripten/val.h>

#include "tformer/options.h"

namespace tformer::wasm {

struct RequestOptions : TranslateOptions {
  bool return_scores = true;
};

// Throws a tformer::Error (kInvalidArgument, phase kRequest) for a value of the wrong type or an
// unknown key; the ranges are the engine's to check (tformer::validate).
RequestOptions read_options(const emscripten::val& options);

}  // namespace tformer::wasm
