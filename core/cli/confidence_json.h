// The CLI's --confidence output: one JSON object per input line,
//   {"text": TRANSLATION, "sentences": [{"text": SENTENCE, "score": S, "logProbs": [...],
//     "words": [{"text": WORD, "start": B, "end": E, "confidence": C, "tokens": [F, L]}, ...]}, ...]}
// where a word's start and end are UTF-8 byte offsets in its sentence's text (as the engine gives
// them: tformer/confidence.h), so that they mean the same with --html, whose line text is markup;
// logProbs are the sentence's token log-probabilities (EOS last), and a word's tokens are
// logProbs[F, L): what other measures can be computed from.
#pragma once

#include <nlohmann/json.hpp>

#include "tformer/translator.h"

namespace tformer::cli {

nlohmann::ordered_json confidence_json(const Translation& translation);

}  // namespace tformer::cli
