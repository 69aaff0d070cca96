// The engine's results as the low-level API returns them (the npm package adds its own fields on
// top: web/src/results.js). Per sentence: source, text, sourceTokens, sourcePieces, tokens,
// targetPieces; `score` with returnScores, the flat [target x source] `alignment` with
// returnAlignment, `nbest` ({text, tokens, score} best first) with nbest > 1, `confidence`
// ({score, words}: confidence.h) with confidence. Per input text:
// {text, sentences}.
#pragma once

#include <emscripten/val.h>

#include "tformer/translator.h"
#include "translate_options.h"

namespace tformer::wasm {

emscripten::val to_js(const SentenceTranslation& s, const RequestOptions& options);
emscripten::val to_js(const Translation& t, const RequestOptions& options);
// A sentence handed out as it ended (TranslationSession::take_completed):
// {segment, paragraph, index, separator, sentence}.
emscripten::val to_js(const CompletedSentence& c, const RequestOptions& options);

}  // namespace tformer::wasm
