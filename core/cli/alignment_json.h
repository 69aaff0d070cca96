// What `tformer translate --alignment` writes for one input line: a JSON object with the
// translation and, per sentence, its byte ranges, its tokens' byte ranges, their pieces and the
// cross-attention weights between them (tformer/annotated_text.h says what a range holds):
//
//   {"translation": "Hello world.",
//    "sentences": [{"source": [0, 11], "target": [0, 12],
//                   "source_tokens": [[0, 5], [5, 10], [10, 11], [11, 11]],
//                   "target_tokens": [[0, 5], [5, 11], [11, 12], [12, 12]],
//                   "source_pieces": ["▁Hallo", "▁Welt", ".", "</s>"], "target_pieces": [...],
//                   "score": -0.41, "alignment": [[...], ...]}]}
//
// Ranges are [begin, end) in bytes of the UTF-8 input line ("source") and of "translation"
// ("target"), within the whole line, so `line[begin:end]` of the bytes is what a token stands
// for. "alignment" has one row per target token and one column per source token.
#pragma once

#include <nlohmann/json.hpp>

#include "tformer/translator.h"

namespace tformer::cli {

nlohmann::json alignment_json(const Translation& translation);

}  // namespace tformer::cli
