#include "results.h"

#include "confidence.h"
#include "js_values.h"

namespace tformer::wasm {

val to_js(const SentenceTranslation& s, const RequestOptions& o) {
  auto hypothesis = [&](const Hypothesis& h) {
    return object({{"text", val(h.text)}, {"tokens", int_array(h.tokens)}, {"score", when(o.return_scores, val(h.score))}});
  };
  const Hypothesis& best = s.hypotheses.at(0);
  return object({
      {"source", val(s.source)},
      {"text", val(best.text)},
      {"sourceTokens", int_array(s.source_tokens)},
      {"sourcePieces", string_array(s.source_pieces)},
      {"tokens", int_array(best.tokens)},
      {"targetPieces", string_array(s.target_pieces)},
      {"score", when(o.return_scores, val(best.score))},
      {"alignment", when(o.return_alignment, float_array(s.alignment))},
      {"nbest", when(o.nbest > 1, array_of(s.hypotheses, hypothesis))},
      {"confidence", o.confidence ? confidence_to_js(s) : val::undefined()},
  });
}

val to_js(const Translation& t, const RequestOptions& o) {
  return object({{"text", val(t.text)},
                 {"sentences", array_of(t.sentences, [&](const SentenceTranslation& s) { return to_js(s, o); })}});
}

val to_js(const CompletedSentence& c, const RequestOptions& o) {
  return object({{"segment", val(double(c.segment))},
                 {"paragraph", val(double(c.paragraph))},
                 {"index", val(double(c.index))},
                 {"separator", val(c.separator)},
                 {"sentence", to_js(c.sentence, o)}});
}

}  // namespace tformer::wasm
