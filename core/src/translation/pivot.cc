// PivotTranslator (tformer/pivot.h): two models one after the other, sentence by sentence, with the
// alignment composed through both.
#include "tformer/pivot.h"

#include <algorithm>
#include <string>
#include <vector>

#include "text/glossary.h"

namespace tformer {
namespace {

constexpr const char* kEos = "</s>";

// A piece's characters once SentencePiece's word mark (U+2581) is left out: what the two
// tokenizations of the same text have in common.
size_t visible_chars(const std::string& piece) {
  if (piece == kEos) return 0;
  size_t n = 0;
  for (size_t i = 0; i < piece.size();) {
    const unsigned char c = static_cast<unsigned char>(piece[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (piece.compare(i, 3, "\xe2\x96\x81") != 0) ++n;
    i += len;
  }
  return n;
}

struct Spans {
  std::vector<double> start, length;
  double total = 0;
};

Spans spans_of(const std::vector<std::string>& pieces) {
  Spans s;
  for (const auto& p : pieces) {
    const double n = double(visible_chars(p));
    s.start.push_back(s.total);
    s.length.push_back(n);
    s.total += n;
  }
  return s;
}

}  // namespace

std::vector<float> compose_alignments(const std::vector<float>& first, const std::vector<std::string>& first_target_pieces,
                                      size_t first_source_tokens, const std::vector<float>& second,
                                      const std::vector<std::string>& second_source_pieces, size_t second_target_tokens) {
  const size_t t1 = first_target_pieces.size(), s1 = first_source_tokens, s2 = second_source_pieces.size(),
               t2 = second_target_tokens;
  if (t1 == 0 || s1 == 0 || s2 == 0 || t2 == 0 || first.size() != t1 * s1 || second.size() != t2 * s2) return {};
  const Spans a = spans_of(first_target_pieces), b = spans_of(second_source_pieces);
  const double scale = b.total > 0 ? a.total / b.total : 0.0;
  // overlap [s2 x t1], rows summing to 1.
  std::vector<double> overlap(s2 * t1, 0.0);
  for (size_t j = 0; j < s2; ++j) {
    double* row = &overlap[j * t1];
    if (second_source_pieces[j] == kEos) {
      const auto eos = std::find(first_target_pieces.begin(), first_target_pieces.end(), kEos);
      row[eos != first_target_pieces.end() ? size_t(eos - first_target_pieces.begin()) : t1 - 1] = 1.0;
      continue;
    }
    const double from = b.start[j] * scale, to = (b.start[j] + b.length[j]) * scale;
    double sum = 0;
    for (size_t i = 0; i < t1; ++i) {
      const double o = std::min(to, a.start[i] + a.length[i]) - std::max(from, a.start[i]);
      if (o > 0) {
        row[i] = o;
        sum += o;
      }
    }
    if (sum > 0) {
      for (size_t i = 0; i < t1; ++i) row[i] /= sum;
    } else {
      // A piece without characters of its own (a lone word mark): the first-step piece at its place.
      size_t at = 0;
      while (at + 1 < t1 && a.start[at] + a.length[at] <= from && first_target_pieces[at + 1] != kEos) ++at;
      row[at] = 1.0;
    }
  }
  // [t2 x t1] = second x overlap, then [t2 x s1] = that x first.
  std::vector<double> mid(t2 * t1, 0.0);
  for (size_t r = 0; r < t2; ++r)
    for (size_t j = 0; j < s2; ++j) {
      const double w = second[r * s2 + j];
      if (w == 0) continue;
      for (size_t i = 0; i < t1; ++i) mid[r * t1 + i] += w * overlap[j * t1 + i];
    }
  std::vector<float> out(t2 * s1, 0.f);
  for (size_t r = 0; r < t2; ++r)
    for (size_t i = 0; i < t1; ++i) {
      const double w = mid[r * t1 + i];
      if (w == 0) continue;
      for (size_t c = 0; c < s1; ++c) out[r * s1 + c] += float(w * first[i * s1 + c]);
    }
  return out;
}

std::vector<Translation> PivotTranslator::translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
  const std::unique_ptr<PivotSession> session = begin(texts, options);
  while (session->next() != PivotSession::Need::kDone) session->pending().compute_on_cpu();
  return session->results();
}

std::unique_ptr<PivotSession> PivotTranslator::begin(const std::vector<std::string>& texts, const TranslateOptions& options,
                                                     bool stream) {
  return std::make_unique<PivotSession>(first_, second_, texts, options, stream);
}

PivotSession::PivotSession(Translator& first, Translator& second, const std::vector<std::string>& texts,
                           const TranslateOptions& options, bool stream)
    : second_(second), options_(options), second_options_(options), stream_(stream && !options.html), paragraphs_(texts.size()) {
  TranslateOptions first_options = options;
  first_options.nbest = 1;  // the second step's n best are the pair's
  first_options.confidence = false;  // and so is its confidence: the words are the second step's
  // Each first-step sentence is one sentence of the second; the first step's output is no user
  // input to bound. HTML goes through the second step as HTML, split as the first split it.
  second_options_.split_sentences = options.html && options.split_sentences;
  second_options_.max_input_chars = 0;
  second_options_.glossary = pivot_glossary(options.glossary);  // the terms the first step put in stay
  out_index_.assign(paragraphs_, 0);
  first_session_ = first.begin(texts, first_options);
}

PivotSession::~PivotSession() = default;

PivotSession::Need PivotSession::next() {
  for (;;) {
    if (second_session_) {
      const Need need = second_session_->next();
      if (need != Need::kDone) return need;
      if (options_.html) {
        finish_html();
      } else {
        finish_second();
      }
      continue;
    }
    if (first_need_) {
      // The first model's request that was pending when the second model took over.
      const Need need = *first_need_;
      first_need_.reset();
      return need;
    }
    if (first_done_) {
      if (!waiting_.empty() && !options_.html) {
        start_second();
        continue;
      }
      return Need::kDone;
    }
    const Need need = first_session_->next();
    for (CompletedSentence& c : first_session_->take_completed()) {
      waiting_.push_back(c.segment);
      through_[c.segment].first = std::move(c);
    }
    if (need == Need::kDone) {
      first_done_ = true;
      if (options_.html) start_html();
      continue;
    }
    if (stream_ && !waiting_.empty()) {
      // A stream: the sentences the first model just ended go through the second one now; the
      // first model's request waits until then.
      first_need_ = need;
      start_second();
      continue;
    }
    return need;
  }
}

TranslationSession& PivotSession::pending() { return second_session_ ? *second_session_ : *first_session_; }

std::vector<CompletedSentence> PivotSession::take_completed() {
  std::vector<CompletedSentence> out;
  out.swap(completed_);
  return out;
}

std::vector<Translation> PivotSession::results() const {
  if (!first_done_ || second_session_ || first_need_ || (!waiting_.empty() && !options_.html))
    throw Error::wrong_state(Phase::kResults, "cannot be had yet: the translation is not finished", {Phase::kNext});
  if (options_.html) return html_;
  // A text without sentences keeps what the first model made of it; the others are the second
  // model's sentences, joined as the first model joined its own.
  // The source's annotated text is the first step's: each second-step sentence stands for the
  // source sentence its first-step sentence came from.
  const std::vector<Translation> first = first_session_->results();
  std::vector<Translation> out = first;
  std::vector<bool> rebuilt(out.size(), false);
  for (const auto& [segment, t] : through_) {
    const size_t p = t.first.paragraph;
    Translation& paragraph = out.at(p);
    if (!rebuilt[p]) {
      paragraph = Translation{};
      paragraph.source.text = first[p].source.text;
      rebuilt[p] = true;
    }
    for (size_t k = 0; k < t.second.size(); ++k) {
      const SentenceTranslation& s = t.second[k].sentence;
      const std::string& gap = k ? t.second[k].separator : t.first.index ? t.first.separator : std::string();
      paragraph.target.append_sentence(gap, s.hypotheses.at(0).text, s.target_ranges);
      paragraph.source.sentences.push_back(first[p].source.sentences.at(t.first.index));
      paragraph.source.tokens.push_back(first[p].source.tokens.at(t.first.index));
      paragraph.sentences.push_back(s);
    }
    paragraph.text = paragraph.target.text;
  }
  return out;
}

void PivotSession::start_second() {
  // In input order, as the first model's results have them (the second model batches by length).
  std::sort(waiting_.begin(), waiting_.end());
  group_.swap(waiting_);
  waiting_.clear();
  std::vector<std::string> texts;
  for (size_t segment : group_) texts.push_back(through_.at(segment).first.sentence.hypotheses.at(0).text);
  second_session_ = second_.begin(texts, second_options_);
}

void PivotSession::finish_second() {
  for (CompletedSentence& c : second_session_->take_completed()) through_.at(group_.at(c.paragraph)).second.push_back(std::move(c));
  for (size_t segment : group_) {
    Through& t = through_.at(segment);
    std::sort(t.second.begin(), t.second.end(), [](const CompletedSentence& a, const CompletedSentence& b) { return a.index < b.index; });
    const SentenceTranslation& f = t.first.sentence;
    // One sentence in, one out, unless the second model cut a long one into pieces: then there is
    // no one sentence to compose the alignment with.
    for (CompletedSentence& piece : t.second) {
      SentenceTranslation& s = piece.sentence;
      if (options_.return_alignment && t.second.size() == 1)
        s.alignment = compose_alignments(f.alignment, f.target_pieces, f.source_tokens.size(), s.alignment, s.source_pieces,
                                         s.target_pieces.size());
      else
        s.alignment.clear();
      s.source = f.source;
      s.source_tokens = f.source_tokens;
      s.source_pieces = f.source_pieces;
      s.source_ranges = f.source_ranges;
    }
    t.done = true;
  }
  group_.clear();
  second_session_.reset();
  hand_out();
}

void PivotSession::hand_out() {
  for (auto it = through_.find(next_out_); it != through_.end() && it->second.done; it = through_.find(++next_out_)) {
    const Through& t = it->second;
    for (size_t k = 0; k < t.second.size(); ++k) {
      CompletedSentence c = t.second[k];
      c.segment = out_segments_++;
      c.paragraph = t.first.paragraph;
      c.index = out_index_.at(c.paragraph)++;
      if (k == 0) c.separator = t.first.separator;
      completed_.push_back(std::move(c));
    }
  }
}

void PivotSession::start_html() {
  // The first step's HTML, its markup placed, goes through the second as HTML.
  html_ = first_session_->results();
  std::vector<std::string> texts;
  for (const auto& t : html_) texts.push_back(t.text);
  second_session_ = second_.begin(texts, second_options_);
}

void PivotSession::finish_html() {
  std::vector<Translation> out = second_session_->results();
  second_session_.reset();
  for (size_t p = 0; p < out.size(); ++p) {
    Translation& t = html_.at(p);
    for (size_t i = 0; i < out[p].sentences.size(); ++i) {
      auto& s = out[p].sentences[i];
      if (out[p].sentences.size() != t.sentences.size()) {
        s.alignment.clear();  // the second model split the HTML's text otherwise: no sentence to compose with
        continue;
      }
      const auto& f = t.sentences[i];
      if (options_.return_alignment)
        s.alignment = compose_alignments(f.alignment, f.target_pieces, f.source_tokens.size(), s.alignment, s.source_pieces,
                                         s.target_pieces.size());
      s.source = f.source;
      s.source_tokens = f.source_tokens;
      s.source_pieces = f.source_pieces;
      s.source_ranges = f.source_ranges;
    }
    t = std::move(out[p]);
  }
}

}  // namespace tformer
