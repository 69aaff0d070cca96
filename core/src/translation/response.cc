#include "translation/response.h"

#include "text/passthrough.h"
#include "text/tokenizer.h"

namespace tformer {

size_t TranslationBytes::in_translation(size_t at) const {
  size_t out = at;
  for (const PutBack& p : put_back)
    if (p.position <= at) out += p.length;
  return out;
}

SentenceTranslation ResponseBuilder::sentence(const Segment& segment, std::vector<SearchHypothesis>& hyps,
                                              TranslationBytes* best, const Glossary* glossary) const {
  SentenceTranslation s;
  s.source = segment.text;
  s.source_tokens = segment.source;
  for (int id : segment.source) s.source_pieces.push_back(source_.piece(id));
  for (SearchHypothesis& h : hyps) {
    Hypothesis out;
    out.tokens = h.tokens;
    out.score = static_cast<float>(h.score);
    std::vector<int> text_ids;
    for (int id : h.tokens)
      if (id != config_.eos_id) text_ids.push_back(id);
    const bool first = s.hypotheses.empty();
    const bool terms = glossary && !segment.terms.empty();
    if (terms || !segment.kept.spans.empty() || segment.kept.verbatim) {
      AnnotatedSentence model = target_.decode_annotated(text_ids);
      const size_t source_offset = config_.source_bos ? 1 : 0;
      if (terms) {
        const std::string& given = segment.kept.spans.empty() ? segment.text : segment.kept.text;
        model = put_terms(*glossary, given, segment.terms, segment.source_tokens, model, h.alignment, segment.source.size(),
                          source_offset);
      }
      out.text = restore(segment.kept, segment.source_tokens, model, h.alignment, segment.source.size(), source_offset,
                         first && best ? &best->put_back : nullptr);
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
