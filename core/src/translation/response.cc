#include "translation/response.h"

#include <algorithm>

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

namespace {

// The bytes of `sentence` that bytes `r` of the cleaned sentence stand for (`origin`: for each
// byte of the cleaned sentence, its byte of the sentence; passthrough took spans out between).
// A token whose whitespace stood before a span that was taken out ("▁heute" of "ist heute", from
// "ist 😀 heute") stands for its rest and the whitespace right before that, not for the span.
ByteRange in_sentence(const ByteRange& r, const std::vector<size_t>& origin, std::string_view sentence) {
  if (r.begin >= origin.size()) return {sentence.size(), sentence.size()};
  if (r.size() == 0) return {origin[r.begin], origin[r.begin]};
  size_t first = r.end - 1;  // where the token's last run of consecutive bytes begins
  while (first > r.begin && origin[first - 1] + 1 == origin[first]) --first;
  size_t begin = origin[r.begin];
  bool head_is_space = true;
  for (size_t k = r.begin; k < first; ++k) head_is_space = head_is_space && sentence[origin[k]] == ' ';
  if (first > r.begin && head_is_space) {
    begin = origin[first];
    for (size_t k = r.begin; k < first && begin > 0 && sentence[begin - 1] == ' '; ++k) --begin;
  }
  return {begin, origin[r.end - 1] + 1};
}

}  // namespace

std::vector<ByteRange> ResponseBuilder::source_ranges(const Segment& u) const {
  std::vector<ByteRange> out;
  out.reserve(u.source.size());
  if (config_.source_bos) out.push_back({0, 0});
  const bool cleaned = !u.kept.spans.empty();
  for (const ByteRange& given : u.source_tokens) {
    // Bytes of the sentence, then of `text` (a cut piece begins past the sentence's start: the
    // whitespace before its first token is not its own).
    const ByteRange r = cleaned ? in_sentence(given, u.kept.origin, u.text) : given;
    auto in_text = [&](size_t at) { return std::min(std::max(at, u.text_at) - u.text_at, u.text.size()); };
    out.push_back({in_text(r.begin), in_text(r.end)});
  }
  if (config_.source_eos) out.push_back({u.text.size(), u.text.size()});
  return out;
}

std::vector<ByteRange> ResponseBuilder::target_ranges(const std::vector<int>& tokens, const TranslationBytes& best,
                                                      size_t text_size) const {
  std::vector<ByteRange> out;
  out.reserve(tokens.size());
  size_t model_token = 0;
  for (int id : tokens) {
    if (id == config_.eos_id) {
      out.push_back({text_size, text_size});
    } else if (best.verbatim || model_token >= best.model.tokens.size()) {
      out.push_back({0, 0});  // a copied sentence holds none of the model's tokens
      ++model_token;
    } else {
      // Moved by what passthrough put back before it; a span put back right after the token
      // is not part of it.
      const ByteRange& r = best.model.tokens[model_token++];
      const size_t begin = best.in_translation(r.begin);
      out.push_back({begin, r.size() ? best.in_translation(r.end - 1) + 1 : begin});
    }
  }
  return out;
}

SentenceTranslation ResponseBuilder::sentence(const Segment& segment, std::vector<SearchHypothesis>& hyps,
                                              TranslationBytes* best, const Glossary* glossary) const {
  SentenceTranslation s;
  s.source = segment.text;
  s.source_tokens = segment.source;
  for (int id : segment.source) s.source_pieces.push_back(source_.piece(id));
  s.source_ranges = source_ranges(segment);
  TranslationBytes best_bytes;  // where the best hypothesis's words came from (word confidence places words by them too)
  const bool confidence = !hyps.at(0).log_probs.empty();  // the search kept the log-probabilities
  for (SearchHypothesis& h : hyps) {
    Hypothesis out;
    out.tokens = h.tokens;
    out.score = static_cast<float>(h.score);
    std::vector<int> text_ids;
    for (int id : h.tokens)
      if (id != config_.eos_id) text_ids.push_back(id);
    const bool first = s.hypotheses.empty();
    const bool terms = glossary && !segment.terms.empty();
    if (terms || !segment.kept.spans.empty() || !segment.kept.numbers.empty() || segment.kept.verbatim) {
      AnnotatedSentence model = target_.decode_annotated(text_ids);
      const size_t source_offset = config_.source_bos ? 1 : 0;
      if (terms) {
        const std::string& given = segment.kept.spans.empty() ? segment.text : segment.kept.text;
        model = put_terms(*glossary, given, segment.terms, segment.source_tokens, model, h.alignment, segment.source.size(),
                          source_offset);
      }
      // The numbers the model lost, put back into its words (they are its words from here on, as
      // a glossary's terms are). A number inside a glossary term is the term's: its wanted form
      // says it, or leaves it out.
      const ProtectedSentence* kept = &segment.kept;
      ProtectedSentence outside_terms;
      if (terms && !segment.kept.numbers.empty()) {
        outside_terms = segment.kept;
        auto in_term = [&](const ByteRange& n) {
          return std::any_of(segment.terms.begin(), segment.terms.end(),
                             [&](const GlossaryMatch& m) { return m.source.begin < n.end && n.begin < m.source.end; });
        };
        outside_terms.numbers.erase(std::remove_if(outside_terms.numbers.begin(), outside_terms.numbers.end(), in_term),
                                    outside_terms.numbers.end());
        kept = &outside_terms;
      }
      model = repair_numbers(*kept, segment.source_tokens, model, h.alignment, segment.source.size(), source_offset,
                             number_marks_);
      out.text = restore(segment.kept, segment.source_tokens, model, h.alignment, segment.source.size(), source_offset,
                         first ? &best_bytes.put_back : nullptr);
      if (first) {
        best_bytes.model = std::move(model);
        best_bytes.verbatim = segment.kept.verbatim;
      }
    } else if (first) {
      best_bytes.model = target_.decode_annotated(text_ids);
      out.text = best_bytes.model.text;
    } else {
      out.text = target_.decode(text_ids);
    }
    s.hypotheses.push_back(std::move(out));
  }
  for (int id : s.hypotheses.at(0).tokens) s.target_pieces.push_back(target_.piece(id));
  s.target_ranges = target_ranges(s.hypotheses[0].tokens, best_bytes, s.hypotheses[0].text.size());
  if (segment.alignment) s.alignment = std::move(hyps.at(0).alignment);
  if (confidence) s.confidence = sentence_confidence(s.target_pieces, hyps.at(0).log_probs, best_bytes, s.hypotheses.at(0).text);
  if (best) *best = std::move(best_bytes);
  return s;
}

void assemble(const std::vector<Segment>& segments, std::vector<SentenceTranslation>& sentences,
              std::vector<Translation>& paragraphs, const std::vector<std::string>* texts) {
  if (texts)
    for (size_t p = 0; p < paragraphs.size(); ++p) paragraphs[p].source.text = texts->at(p);
  for (size_t u = 0; u < segments.size(); ++u) {
    const Segment& segment = segments[u];
    Translation& t = paragraphs[segment.paragraph];
    SentenceTranslation& s = sentences[u];
    const std::string gap = t.sentences.empty() ? std::string()
                            : segment.line != segments[u - 1].line ? std::string(segment.line - segments[u - 1].line, '\n')
                                                                   : std::string(" ");
    t.text += gap;
    if (texts) {
      const size_t at = segment.begin + segment.text_at;
      t.source.record_sentence({at, at + s.source.size()}, s.source_ranges);
      t.target.record_sentence({t.text.size(), t.text.size() + s.hypotheses.at(0).text.size()}, s.target_ranges);
    }
    t.text += s.hypotheses.at(0).text;
    t.sentences.push_back(std::move(s));
  }
  if (texts)
    for (Translation& t : paragraphs) t.target.text = t.text;
}

}  // namespace tformer
