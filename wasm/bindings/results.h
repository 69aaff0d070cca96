// The engine's results as the low-level API returns them (the npm package adds its own fields on
// top: web/src/results.js). Per sentence: source, text, sourceTokens, sourcePieces, tokens,
// targetPieces; `score` with returnScores; with returnAlignment the flat [target x source]
// `alignment` and, per source and target token, the [begin, end) of `source` and `text` it stands
// for (sourceRanges, targetRanges; string indices, utf16_ranges.h); `nbest` ({text, tokens,
// score} best first) with nbest > 1; `confidence` ({score, words}: confidence.h) with confidence.
// Per input text: {text, sentences} and, with returnAlignment (not in HTML mode), each sentence's
// and each token's range within the whole input and translation: sourceSentences,
// targetSentences, sourceRanges, targetRanges (all sentences' tokens in order).
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
