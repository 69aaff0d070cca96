#include "translation/session.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "decoding/packed_candidates.h"
#include "memory/sentence_entry.h"
#include "translation/batcher.h"
#include "translation/html_response.h"
#include "util/utf8.h"
#include "translation/response.h"

namespace tformer {
namespace {

// `spans`: some sentence of the batch had spans taken out or numbers to check (passthrough) or
// glossary terms, which are put back by the alignment, as html places its elements by it; other batches need it only when
// asked for.
SearchOptions search_options(const TranslateOptions& options, bool spans) {
  SearchOptions so;
  so.beam_size = options.beam_size;
  so.nbest = options.nbest;
  so.length_penalty = options.length_penalty;
  // passthrough places spans by it, html places elements by it
  so.alignment = options.return_alignment || spans || options.html;
  so.log_probs = options.confidence;
  return so;
}

}  // namespace

TranslationSession::Impl::Impl(std::shared_ptr<LoadedModel> model, const std::vector<std::string>& texts,
                               const TranslateOptions& options)
    // Word confidence needs the search's log-probabilities, which the memory does not keep: a
    // request that asks for it is computed.
    : m_(std::move(model)), options_(options), paragraphs_(texts.size()),
      translation_memory_(options.confidence ? nullptr : m_->memory) {
  validate(options);
  if (!options.glossary.empty()) glossary_.emplace(options.glossary);
  const Glossary* glossary = glossary_ ? &*glossary_ : nullptr;
  if (options.html) {
    split_html(texts);
  } else {
    for (size_t p = 0; p < texts.size(); ++p) {
      const size_t first = segments_.size();
      m_->segmenter->split(p, texts[p], options, segments_, nullptr, glossary);
      name_for_memory(first, texts[p]);
    }
    texts_ = texts;
  }
  done_.resize(segments_.size());
  // Where each segment lands in the results, as assemble() places it.
  places_.resize(segments_.size());
  for (size_t u = 0; u < segments_.size(); ++u) {
    CompletedSentence& place = places_[u];
    place.segment = u;
    place.paragraph = segments_[u].paragraph;
    if (u > 0 && segments_[u - 1].paragraph == place.paragraph) {
      place.index = places_[u - 1].index + 1;
      const size_t lines = segments_[u].line - segments_[u - 1].line;
      place.separator = lines ? std::string(lines, '\n') : " ";
    }
  }
  // What the memory answers is done before anything is computed; the rest is batched.
  std::vector<size_t> pending, lengths;
  for (size_t u = 0; u < segments_.size(); ++u) {
    if (recall(u)) continue;
    pending.push_back(u);
    lengths.push_back(segments_[u].source.size());
  }
  batches_ = make_batches(lengths, options.max_batch_tokens);
  for (std::vector<size_t>& batch : batches_)
    for (size_t& u : batch) u = pending[u];
}

void TranslationSession::Impl::name_for_memory(size_t first, const std::string& text) {
  if (!translation_memory_) return;
  const std::string fingerprint = memory_fingerprint(options_);
  keys_.resize(segments_.size());
  for (size_t u = first; u < segments_.size(); ++u)
    keys_[u] = sentence_key(m_->identity(), fingerprint, segments_[u], text);
}

bool TranslationSession::Impl::recall(size_t u) {
  if (!translation_memory_) return false;
  const std::optional<std::string> value = translation_memory_->find(keys_[u]);
  if (!value) return false;
  std::optional<SentenceEntry> entry = decode_entry(*value, segments_[u], m_->config);
  if (!entry) {  // not an answer for this sentence (a damaged entry): computed again, and replaced
    translation_memory_->forget(keys_[u]);
    return false;
  }
  done_[u] = std::move(entry->sentence);
  ++memory_hits_;
  if (options_.html) {
    target_bytes_[u] = std::move(entry->bytes);
  } else {
    CompletedSentence completed = places_[u];
    completed.sentence = done_[u];
    completed_.push_back(std::move(completed));
  }
  return true;
}

TranslationSession::Need TranslationSession::Impl::next() {
  if (phase_ == Phase::kEncodePending)
    throw Error::wrong_state(Call::kNext, "cannot go on: the pending encode request has no answer yet",
                             {Call::kProvideEncoderOutput, Call::kComputeOnCpu});
  if (phase_ == Phase::kProjectPending)
    throw Error::wrong_state(Call::kNext, "cannot go on: the pending projection request has no answer yet",
                             {Call::kProvideLogits, Call::kProvideCandidates, Call::kComputeOnCpu});
  if (phase_ == Phase::kDone) return Need::kDone;
  std::lock_guard<std::mutex> lock(m_->mutex);
  if (phase_ == Phase::kEncodeAnswered) {
    std::vector<int> max_lengths;
    for (size_t u : batches_[batch_])
      max_lengths.push_back(max_target_length(segments_[u].source.size(), options_, m_->config.max_positions));
    std::vector<std::vector<int>> shortlists;
    if (m_->shortlist && options_.shortlist)
      for (size_t u : batches_[batch_])
        shortlists.push_back(m_->shortlist->words(segments_[u].source.data(), segments_[u].source.size()));
    const bool spans = std::any_of(batches_[batch_].begin(), batches_[batch_].end(),
                                   [&](size_t u) {
                                     const Segment& s = segments_[u];
                                     return !s.kept.spans.empty() || !s.kept.numbers.empty() || !s.terms.empty();
                                   });
    search_.emplace(m_->model->decoder(), m_->config, *memory_, std::move(max_lengths), search_options(options_, spans),
                    search_rules(m_->config, options_.repetition_guard, std::move(shortlists)));
    memory_.reset();  // the decoder keeps the keys and values it needs
  } else if (phase_ == Phase::kProjectAnswered) {
    if (answered_with_candidates_)
      search_->consume_candidates(candidates_.data());
    else
      search_->consume_logits();
    collect();
  }
  phase_ = Phase::kIdle;
  if (search_ && !search_->done()) {
    hidden_ = search_->hidden().data();
    phase_ = Phase::kProjectPending;
    return Need::kProject;
  }
  if (search_) {  // every sentence of the batch was built by collect() as it ended
    search_.reset();
    ++batch_;
  }
  if (batch_ < batches_.size()) {
    make_encode_request();
    phase_ = Phase::kEncodePending;
    return Need::kEncode;
  }
  if (options_.html) {
    assemble_html();
  } else {
    assemble(segments_, done_, paragraphs_, &texts_);
  }
  phase_ = Phase::kDone;
  return Need::kDone;
}

// HTML mode: each block of each text is a paragraph of its own (segments' `paragraph` counts
// blocks), split into sentences on one line, its alignment kept for placing the elements.
void TranslationSession::Impl::split_html(const std::vector<std::string>& texts) {
  HtmlOptions html_options;
  html_options.skip_code = !options_.html_translate_code;
  size_t blocks = 0;
  for (size_t p = 0; p < texts.size(); ++p) {
    require_valid_utf8(texts[p], p);
    require_at_most_chars(texts[p], options_.max_input_chars, p);
    try {
      html_.push_back(parse_html(texts[p], html_options));
    } catch (const Error& e) {
      throw Error::about_input(ErrorCode::kInvalidText, p, std::string("cannot be read as HTML: ") + e.detail());
    }
    for (const HtmlBlock& b : html_.back().blocks) {
      const std::string text = html_model_text(b.text);
      const std::vector<SentenceSpan> sentences = html_sentences(b, text);
      const size_t first = segments_.size();
      m_->segmenter->split(blocks++, text, options_, segments_, options_.split_sentences ? &sentences : nullptr,
                           glossary_ ? &*glossary_ : nullptr);
      name_for_memory(first, text);
    }
  }
  for (Segment& u : segments_) u.alignment = true;
  target_bytes_.resize(segments_.size());
}

void TranslationSession::Impl::assemble_html() {
  size_t blocks = 0;
  for (const HtmlFragment& f : html_) blocks += f.blocks.size();
  std::vector<Translation> block_translations(blocks);
  assemble(segments_, done_, block_translations);
  std::vector<std::vector<HtmlSegment>> block_segments(blocks);
  for (size_t u = 0; u < segments_.size(); ++u)
    block_segments[segments_[u].paragraph].push_back({&segments_[u], &target_bytes_[u]});
  size_t first = 0;
  for (size_t p = 0; p < html_.size(); ++p) {
    const size_t n = html_[p].blocks.size();
    std::vector<Translation> these(std::make_move_iterator(block_translations.begin() + long(first)),
                                   std::make_move_iterator(block_translations.begin() + long(first + n)));
    std::vector<std::vector<HtmlSegment>> their_segments(block_segments.begin() + long(first),
                                                             block_segments.begin() + long(first + n));
    paragraphs_[p] = html_translation(html_[p], m_->config, their_segments, these, options_.return_alignment);
    first += n;
  }
}

const TranslationSession::EncodeRequest& TranslationSession::Impl::encode_request() const {
  expect(Phase::kEncodePending, Call::kEncodeRequest);
  return request_;
}

void TranslationSession::Impl::provide_encoder_output(const float* states, size_t size) {
  expect(Phase::kEncodePending, Call::kProvideEncoderOutput);
  const size_t d = d_model();
  check_values(Call::kProvideEncoderOutput, states, size, request_.batch * request_.length * d,
               "batch " + std::to_string(request_.batch) + " x length " + std::to_string(request_.length) +
                   " x d_model " + std::to_string(d));
  EncoderOutput memory;
  memory.batch = request_.batch;
  memory.max_length = request_.length;
  memory.d_model = d;
  memory.lengths.assign(request_.lengths.begin(), request_.lengths.end());
  memory.states.assign(states, states + size);
  memory_ = std::move(memory);
  phase_ = Phase::kEncodeAnswered;
}

const float* TranslationSession::Impl::hidden(size_t* rows) const {
  expect(Phase::kProjectPending, Call::kHidden);
  if (rows) *rows = search_->rows();
  return hidden_;
}

bool TranslationSession::Impl::projects_on_cpu_only() const {
  expect(Phase::kProjectPending, Call::kProjectsOnCpuOnly);
  return search_->shortlisted();
}

void TranslationSession::Impl::refuse_if_shortlisted(Call call) const {
  if (search_->shortlisted())
    throw Error::wrong_state(call,
                             "cannot answer this batch: it is decoded with the model's lexical shortlist, whose "
                             "projection onto the shortlisted words only the engine computes",
                             {Call::kComputeOnCpu});
}

void TranslationSession::Impl::provide_logits(const float* logits, size_t size) {
  expect(Phase::kProjectPending, Call::kProvideLogits);
  refuse_if_shortlisted(Call::kProvideLogits);
  const size_t rows = search_->rows();
  check_values(Call::kProvideLogits, logits, size, rows * vocab_size(),
               std::to_string(rows) + " rows x vocabulary " + std::to_string(vocab_size()));
  std::copy(logits, logits + size, search_->logits());
  answered_with_candidates_ = false;
  phase_ = Phase::kProjectAnswered;
}

void TranslationSession::Impl::provide_candidates(const float* rows, size_t size) {
  expect(Phase::kProjectPending, Call::kProvideCandidates);
  refuse_if_shortlisted(Call::kProvideCandidates);
  const size_t n = search_->rows(), k = search_->candidates_per_row(), stride = packed_floats(k), V = vocab_size();
  check_values(Call::kProvideCandidates, rows, size, n * stride,
               std::to_string(n) + " rows x (3 + 2 x " + std::to_string(k) + " candidates)");
  std::vector<float> ids(k);
  for (size_t r = 0; r < n; ++r) {
    const float* row = rows + r * stride;
    auto bad = [&](const std::string& what) {
      throw Error(ErrorCode::kInvalidValues, Call::kProvideCandidates, "got a bad row " + std::to_string(r) + ": " + what);
    };
    if (!std::isfinite(row[0]) || !std::isfinite(row[1])) bad("the max and log-sum-exp must be finite");
    for (size_t i = 0; i < k; ++i) {
      const float id = row[3 + 2 * i + 1];
      if (!(id >= 0 && id < float(V) && id == std::floor(id)))
        bad("candidate " + std::to_string(i) + " has token id " + std::to_string(id) + ", not one of [0, " + std::to_string(V) + ")");
      ids[i] = id;
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) bad("a token id is given twice");
  }
  candidates_.assign(rows, rows + size);
  answered_with_candidates_ = true;
  phase_ = Phase::kProjectAnswered;
}

size_t TranslationSession::Impl::candidates_per_row() const {
  expect(Phase::kProjectPending, Call::kCandidatesPerRow);
  return search_->candidates_per_row();
}

void TranslationSession::Impl::compute_on_cpu() {
  if (phase_ != Phase::kEncodePending && phase_ != Phase::kProjectPending)
    throw Error::wrong_state(Call::kComputeOnCpu, "has no request to answer", {Call::kNext});
  std::lock_guard<std::mutex> lock(m_->mutex);
  if (phase_ == Phase::kEncodePending) {
    std::vector<std::vector<int>> sources;
    for (size_t u : batches_[batch_]) sources.push_back(segments_[u].source);
    memory_ = m_->model->encoder().forward(sources);
    phase_ = Phase::kEncodeAnswered;
  } else {
    search_->project();
    answered_with_candidates_ = false;
    phase_ = Phase::kProjectAnswered;
  }
}

void TranslationSession::Impl::collect() {
  for (auto& [s, hyps] : search_->take_finished()) {
    const size_t u = batches_[batch_][s];
    done_[u] = m_->responses->sentence(segments_[u], hyps, options_.html ? &target_bytes_[u] : nullptr,
                                       glossary_ ? &*glossary_ : nullptr);
    if (translation_memory_) translation_memory_->put(keys_[u], encode_entry(done_[u], options_.html ? &target_bytes_[u] : nullptr));
    // HTML hands out nothing: a text's markup is placed once all its blocks are done (and its
    // segments count blocks, not texts).
    if (options_.html) continue;
    // A copy: assemble() moves done_ into the results at the end.
    CompletedSentence completed = places_[u];
    completed.sentence = done_[u];
    completed_.push_back(std::move(completed));
  }
}

std::vector<CompletedSentence> TranslationSession::Impl::take_completed() {
  std::vector<CompletedSentence> out;
  out.swap(completed_);
  return out;
}

std::vector<Translation> TranslationSession::Impl::results() const {
  if (phase_ != Phase::kDone)
    throw Error::wrong_state(Call::kResults, "cannot be had yet: the translation is not finished", {Call::kNext});
  return paragraphs_;
}

void TranslationSession::Impl::expect(Phase phase, Call call) const {
  if (phase_ == phase) return;
  const std::string needs = phase == Phase::kEncodePending ? "needs an encode request, but " : "needs a projection request, but ";
  switch (phase_) {
    case Phase::kIdle: throw Error::wrong_state(call, needs + "no request is pending", {Call::kNext});
    case Phase::kEncodePending: throw Error::wrong_state(call, needs + "an encode request is pending");
    case Phase::kProjectPending: throw Error::wrong_state(call, needs + "a projection request is pending");
    case Phase::kEncodeAnswered:
    case Phase::kProjectAnswered: throw Error::wrong_state(call, needs + "the request was answered", {Call::kNext});
    case Phase::kDone: throw Error::wrong_state(call, needs + "the translation is finished");
  }
}

void TranslationSession::Impl::check_values(Call call, const float* values, size_t size, size_t expected,
                                            const std::string& shape) {
  auto bad = [&](const std::string& what) { throw Error(ErrorCode::kInvalidValues, call, what); };
  if (size != expected) bad("got " + std::to_string(size) + " values, " + std::to_string(expected) + " expected (" + shape + ")");
  if (!values && size) bad("got no values");
  for (size_t i = 0; i < size; ++i)
    if (std::isnan(values[i])) bad("got NaN as value " + std::to_string(i));
}

void TranslationSession::Impl::make_encode_request() {
  const std::vector<size_t>& batch = batches_[batch_];
  request_.batch = batch.size();
  request_.length = 0;
  for (size_t u : batch) request_.length = std::max(request_.length, segments_[u].source.size());
  request_.ids.assign(request_.batch * request_.length, m_->config.pad_id);
  request_.lengths.clear();
  for (size_t b = 0; b < batch.size(); ++b) {
    const std::vector<int>& source = segments_[batch[b]].source;
    std::copy(source.begin(), source.end(), request_.ids.begin() + long(b * request_.length));
    request_.lengths.push_back(int32_t(source.size()));
  }
}

TranslationSession::TranslationSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TranslationSession::~TranslationSession() = default;
TranslationSession::Need TranslationSession::next() { return impl_->next(); }
const TranslationSession::EncodeRequest& TranslationSession::encode_request() const { return impl_->encode_request(); }
void TranslationSession::provide_encoder_output(const float* states, size_t size) { impl_->provide_encoder_output(states, size); }
const float* TranslationSession::hidden(size_t* rows) const { return impl_->hidden(rows); }
void TranslationSession::provide_logits(const float* logits, size_t size) { impl_->provide_logits(logits, size); }
void TranslationSession::provide_candidates(const float* rows, size_t size) { impl_->provide_candidates(rows, size); }
size_t TranslationSession::candidates_per_row() const { return impl_->candidates_per_row(); }
void TranslationSession::compute_on_cpu() { impl_->compute_on_cpu(); }
bool TranslationSession::projects_on_cpu_only() const { return impl_->projects_on_cpu_only(); }
std::vector<Translation> TranslationSession::results() const { return impl_->results(); }
std::vector<CompletedSentence> TranslationSession::take_completed() { return impl_->take_completed(); }
size_t TranslationSession::memory_hits() const { return impl_->memory_hits(); }
size_t TranslationSession::d_model() const { return impl_->d_model(); }
size_t TranslationSession::vocab_size() const { return impl_->vocab_size(); }

}  // namespace tformer
