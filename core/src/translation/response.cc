#include "translation/response.h"

#include "text/passthrough.h"
#include "text/tokenizer.h"
#include "translation/confidence.h"

namespace tformer {

size_t TranslationBytes::in_translation(size_t at) const {
  size_t out = at;
  for (const PutBack& p : put_back)
    if (p.position <= at) out += p.length;
  return out;
}

SentenceTranslation ResponseBuilder::sentence(const Segment& segment, std::vector<SearchHypothesis>& hyps,
                                              TranslationBytes* best) const {
  SentenceTranslation s;
  s.source = segment.text;
  s.source_tokens = segment.source;
  for (int id : segment.source) s.source_pieces.push_back(source_.piece(id));
  // Word confidence (the search kept the log-probabilities) places words by the best hypothesis's
  // bytes too.
  TranslationBytes for_confidence;
  const bool confidence = !hyps.at(0).log_probs.empty();
  if (!best && confidence) best = &for_confidence;
  for (SearchHypothesis& h : hyps) {
    Hypothesis out;
    out.tokens = h.tokens;
    out.score = static_cast<float>(h.score);
    std::vector<int> text_ids;
    for (int id : h.tokens)
      if (id != config_.eos_id) text_ids.push_back(id);
    const bool first = s.hypotheses.empty();
    if (!segment.kept.spans.empty() || segment.kept.verbatim) {
      AnnotatedSentence model = target_.decode_annotated(text_ids);
      out.text = restore(segment.kept, segment.source_tokens, model, h.alignment, segment.source.size(),
                         config_.source_bos ? 1 : 0, first && best ? &best->put_back : nullptr);
      if (first && best) {
        best->model = std::move(model);
        best->verbatim = segment.kept.verbatim;
      }
    } else if (first && best) {
      best->model = target_.decode_annotated(text_ids);
      out.text = best->model.text;
    } else {
      out.text = target_.decode(text_ids);
    }
    s.hypotheses.push_back(std::move(out));
  }
  for (int id : s.hypotheses.at(0).tokens) s.target_pieces.push_back(target_.piece(id));
  if (segment.alignment) s.alignment = std::move(hyps.at(0).alignment);
  if (confidence) s.confidence = sentence_confidence(s.target_pieces, hyps.at(0).log_probs, *best, s.hypotheses.at(0).text);
  return s;
}

void assemble(const std::vector<Segment>& segments, std::vector<SentenceTranslation>& sentences,
              std::vector<Translation>& paragraphs) {
  for (size_t u = 0; u < segments.size(); ++u) {
    Translation& t = paragraphs[segments[u].paragraph];
    if (!t.sentences.empty())
      t.text += segments[u].line != segments[u - 1].line ? std::string(segments[u].line - segments[u - 1].line, '\n') : " ";
    t.text += sentences[u].hypotheses.at(0).text;
    t.sentences.push_back(std::move(sentences[u]));
  }
}

}  // namespace tformer
