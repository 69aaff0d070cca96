#include "results.h"

#include "confidence.h"
#include "js_values.h"
#include "utf16_ranges.h"

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
      {"sourceRanges", when(o.return_alignment, Utf16Offsets(s.source).ranges(s.source_ranges))},
      {"targetRanges", when(o.return_alignment, Utf16Offsets(best.text).ranges(s.target_ranges))},
      {"nbest", when(o.nbest > 1, array_of(s.hypotheses, hypothesis))},
      {"confidence", o.confidence ? confidence_to_js(s) : val::undefined()},
  });
}

namespace {

// The ranges of the whole text's sentences, and of all their tokens in order.
val sentence_ranges(const AnnotatedText& a) { return Utf16Offsets(a.text).ranges(a.sentences); }
val token_ranges(const AnnotatedText& a) {
  const Utf16Offsets offsets(a.text);
  val out = val::array();
  for (const auto& sentence : a.tokens)
    for (const ByteRange& r : sentence) out.call<void>("push", offsets.range(r));
  return out;
}

}  // namespace

val to_js(const Translation& t, const RequestOptions& o) {
  // HTML mode has no annotated texts (the translation is markup): no whole-text ranges.
  const bool ranges = o.return_alignment && t.source.sentences.size() == t.sentences.size() &&
                      t.target.sentences.size() == t.sentences.size();
  return object({{"text", val(t.text)},
                 {"sentences", array_of(t.sentences, [&](const SentenceTranslation& s) { return to_js(s, o); })},
                 {"sourceSentences", when(ranges, sentence_ranges(t.source))},
                 {"targetSentences", when(ranges, sentence_ranges(t.target))},
                 {"sourceRanges", when(ranges, token_ranges(t.source))},
                 {"targetRanges", when(ranges, token_ranges(t.target))}});
}

val to_js(const CompletedSentence& c, const RequestOptions& o) {
  return object({{"segment", val(double(c.segment))},
                 {"paragraph", val(double(c.paragraph))},
                 {"index", val(double(c.index))},
                 {"separator", val(c.separator)},
                 {"sentence", to_js(c.sentence, o)}});
}

}  // namespace tformer::wasm
