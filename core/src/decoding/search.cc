#include "decoding/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decoding/packed_candidates.h"
#include "tformer/error.h"
#include "util/profile.h"

namespace tformer {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// a ranks before b: higher score, then lower index (a stable descending sort).
template <typename Candidate>
bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.score > b.score || (a.score == b.score && a.index < b.index);
}

double normalized(float raw, size_t length, float alpha) {
  return alpha != 0.f ? double(raw) / std::pow(double(length), double(alpha)) : double(raw);
}

// Where token `id` lies among ascending `ids` (-1: not there, or id < 0).
int column_of(const std::vector<int>& ids, int id) {
  const auto it = std::lower_bound(ids.begin(), ids.end(), id);
  return id >= 0 && it != ids.end() && *it == id ? int(it - ids.begin()) : -1;
}

}  // namespace

Search::Search(const Decoder& decoder, const ModelConfig& config, const EncoderOutput& memory,
               std::vector<int> max_lengths, const SearchOptions& options, LogitsProcessors rules, bool keep_logits)
    : decoder_(decoder),
      config_(config),
      options_(options),
      rules_(std::move(rules)),
      max_lengths_(std::move(max_lengths)),
      records_(options.alignment, keep_logits, options.log_probs, memory.lengths, memory.max_length),
      candidates_(config.eos_id) {
  if (max_lengths_.size() != memory.batch)
    throw Error("search: " + std::to_string(max_lengths_.size()) + " length limits for a batch of " +
                std::to_string(memory.batch));
  vocabularies_ = rules_.vocabularies(memory.batch, config.vocab_size);
  for (const std::vector<int>& ids : vocabularies_) {
    suppressed_columns_.push_back(column_of(ids, rules_.suppressed_token()));
    eos_columns_.push_back(column_of(ids, config.eos_id));
  }
  const int longest = *std::max_element(max_lengths_.begin(), max_lengths_.end());
  state_ = decoder.start(memory, size_t(longest), vocabularies_);
  rows_.resize(memory.batch);
  for (size_t b = 0; b < memory.batch; ++b) rows_[b].sentence = int(b);
  finished_.resize(memory.batch);
}

const std::vector<float>& Search::hidden() {
  if (done()) throw Error("search: hidden() after the search is done");
  if (!hidden_ready_) {
    tokens_.resize(rows_.size());
    for (size_t r = 0; r < rows_.size(); ++r) tokens_[r] = rows_[r].tokens.empty() ? -1 : rows_[r].tokens.back();
    decoder_.step_hidden(state_, tokens_, hidden_, records_.step_alignment());
    logits_.ensure(rows_.size() * decoder_.logits_width(state_));
    hidden_ready_ = true;
  }
  return hidden_;
}

float* Search::logits() {
  if (!hidden_ready_) throw Error("search: logits() before hidden() in this step");
  return logits_.data();
}

void Search::project() {
  if (!hidden_ready_) throw Error("search: project() before hidden() in this step");
  profile::Scope timed(profile::Phase::kOutputProjection);
  decoder_.project(state_, hidden_.data(), logits_.data());
}

void Search::consume_logits() {
  if (!hidden_ready_) throw Error("search: consume_logits() before hidden() in this step");
  // Only each row's best candidates can enter the next beam, and log_softmax keeps the order of
  // logits, so the rules run on those few (packed as consume_candidates takes them) instead of
  // on V log-probabilities per row: one pass for the max and the log-sum-exp, one to select. The
  // log-probabilities are the very numbers the full row would give, (logit - max) - log_sum.
  // With a shortlist, a row's logits are those of its sentence's ids (ascending), which go
  // through the same passes as a whole row.
  const size_t rows = rows_.size(), k = candidates_per_row(), stride = packed_floats(k);
  const size_t V = size_t(config_.vocab_size), W = decoder_.logits_width(state_);
  packed_.resize(rows * stride);
  top_.resize(rows * k);
  // Rows are independent: on the layers' thread pool, as they would otherwise be the one serial
  // part of a step (two passes over V per row).
  profile::Scope timed(profile::Phase::kCandidates);
  decoder_.kernels().parallel_for(rows, [&](size_t r) {
    float* row = &packed_[r * stride];
    int* top = &top_[r * k];
    const float* x = &logits_[r * W];
    if (!shortlisted())
      return pack_candidates(x, V, nullptr, rules_.suppressed_token(), config_.eos_id, config_.eos_id, k, row, top);
    const size_t s = size_t(rows_[r].sentence);
    // An EOS outside the list cannot be chosen (column -1: logit -inf).
    pack_candidates(x, vocabularies_[s].size(), vocabularies_[s].data(), suppressed_columns_[s], eos_columns_[s],
                    config_.eos_id, k, row, top);
  });
  timed.stop();
  if (records_.keeps_logits()) {
    // The raw rows (with a shortlist: -inf outside the row's list), before the rules.
    for (size_t r = 0; r < rows; ++r) {
      const std::vector<int>* ids = shortlisted() ? &vocabularies_[size_t(rows_[r].sentence)] : nullptr;
      records_.keep_logits(r, &logits_[r * W], ids ? ids->size() : V, ids ? ids->data() : nullptr, V);
    }
  }
  advance(packed_.data());
}

size_t Search::candidates_per_row() const {
  // The rules may disable some of a row's best candidates: as many more keep the search exact.
  return (options_.beam_size <= 1 ? 1 : size_t(2 * options_.beam_size)) + rules_.disables_at_most();
}

void Search::consume_candidates(const float* rows) {
  if (!hidden_ready_) throw Error("search: consume_candidates() before hidden() in this step");
  if (records_.keeps_logits()) throw Error("search: keep_logits needs full logits");
  advance(rows);
}

void Search::advance(const float* packed) {
  profile::Scope timed(profile::Phase::kBookkeeping);
  hidden_ready_ = false;
  unpack_candidates(packed, rows_.size(), candidates_per_row(), candidates_);
  rules_.apply(SearchStep{step_, rows_, max_lengths_}, candidates_);
  ++step_;
  choose();
  timed.stop();
  if (!rows_.empty()) decoder_.select_rows(state_, parents_);
}

void Search::choose() {
  const size_t V = size_t(config_.vocab_size);
  const int K = std::max(1, options_.beam_size);
  std::vector<LiveHypothesis> next;
  std::vector<HypothesisRecord> next_records;
  parents_.clear();
  auto finish = [&](size_t r, int token, float score) {
    const LiveHypothesis& row = rows_[r];
    SearchHypothesis h;
    h.tokens = row.tokens;
    h.tokens.push_back(token);
    h.raw_score = score;
    h.score = normalized(score, h.tokens.size(), options_.length_penalty);
    HypothesisRecord record = records_.continued(r, row.sentence, score - row.score);
    h.alignment = std::move(record.alignment);
    h.step_logits = std::move(record.step_logits);
    h.log_probs = std::move(record.log_probs);
    finished_[size_t(row.sentence)].push_back(std::move(h));
  };
  auto extend = [&](size_t r, int token, float score) {
    const LiveHypothesis& row = rows_[r];
    LiveHypothesis n;
    n.sentence = row.sentence;
    n.tokens = row.tokens;
    n.tokens.push_back(token);
    n.score = score;
    next.push_back(std::move(n));
    next_records.push_back(records_.continued(r, row.sentence, score - row.score));
    parents_.push_back(int(r));
  };

  // Rows of one sentence are contiguous: [begin, end).
  for (size_t begin = 0; begin < rows_.size();) {
    const int sentence = rows_[begin].sentence;
    size_t end = begin;
    while (end < rows_.size() && rows_[end].sentence == sentence) ++end;

    if (K == 1) {
      // The first maximum: the highest log-probability, then the lowest token id.
      int best = -1;
      float best_lp = kNegInf;
      for (const TokenLogProb* c = candidates_.begin(begin); c != candidates_.end(begin); ++c) {
        if (best < 0 || c->log_prob > best_lp || (c->log_prob == best_lp && c->token < best)) {
          best = c->token;
          best_lp = c->log_prob;
        }
      }
      if (best < 0 || best >= int(V)) throw Error("search: no candidate token for a hypothesis");
      const float score = rows_[begin].score + best_lp;
      if (best == config_.eos_id) {
        finish(begin, best, score);
        left_.push_back(size_t(sentence));
      } else {
        extend(begin, best, score);
      }
      begin = end;
      continue;
    }

    // The best 2K candidates over all rows of the sentence, kept in a heap whose top is the
    // worst of them.
    const size_t keep = size_t(2 * K);
    heap_.clear();
    for (size_t r = begin; r < end; ++r) {
      const float base = rows_[r].score;
      for (const TokenLogProb* t = candidates_.begin(r); t != candidates_.end(r); ++t) {
        const Candidate c{base + t->log_prob, int64_t((r - begin) * V) + t->token};
        if (c.score == kNegInf || t->token < 0 || t->token >= int(V)) continue;
        if (heap_.size() == keep && !ranks_before(c, heap_.front())) continue;
        heap_.push_back(c);
        std::push_heap(heap_.begin(), heap_.end(), ranks_before<Candidate>);
        if (heap_.size() > keep) {
          std::pop_heap(heap_.begin(), heap_.end(), ranks_before<Candidate>);
          heap_.pop_back();
        }
      }
    }
    std::sort(heap_.begin(), heap_.end(), ranks_before<Candidate>);
    auto& done = finished_[size_t(sentence)];
    int live = 0;
    for (size_t rank = 0; rank < heap_.size(); ++rank) {
      const size_t r = begin + size_t(heap_[rank].index / int64_t(V));
      const int token = int(heap_[rank].index % int64_t(V));
      if (token == config_.eos_id) {
        if (int(rank) < K && int(done.size()) < K) finish(r, token, heap_[rank].score);
      } else if (live < K) {
        extend(r, token, heap_[rank].score);
        ++live;
      }
    }
    if (int(done.size()) >= K) {
      // The sentence is done: drop the rows just added for it.
      while (!next.empty() && next.back().sentence == sentence) {
        next.pop_back();
        next_records.pop_back();
        parents_.pop_back();
      }
    }
    if (next.empty() || next.back().sentence != sentence) left_.push_back(size_t(sentence));
    begin = end;
  }
  rows_ = std::move(next);
  records_.next_step(std::move(next_records));
}

void Search::rank(std::vector<SearchHypothesis>& hyps) const {
  std::stable_sort(hyps.begin(), hyps.end(),
                   [](const SearchHypothesis& a, const SearchHypothesis& b) { return a.score > b.score; });
  if (int(hyps.size()) > options_.nbest) hyps.resize(size_t(options_.nbest));
}

std::vector<std::vector<SearchHypothesis>> Search::take_results() {
  if (!done()) throw Error("search: take_results() before the search is done");
  for (auto& hyps : finished_) rank(hyps);
  return std::move(finished_);
}

std::vector<std::pair<size_t, std::vector<SearchHypothesis>>> Search::take_finished() {
  std::vector<std::pair<size_t, std::vector<SearchHypothesis>>> out;
  out.reserve(left_.size());
  for (size_t s : left_) {
    rank(finished_[s]);
    out.emplace_back(s, std::move(finished_[s]));
    finished_[s].clear();  // a moved-from vector is valid but unspecified: make it empty
  }
  left_.clear();
  return out;
}

std::vector<std::vector<SearchHypothesis>> search(const Decoder& decoder, const ModelConfig& config,
                                                  const EncoderOutput& memory, const std::vector<int>& max_lengths,
                                                  const SearchOptions& options, bool keep_logits,
                                                  std::vector<std::vector<int>> shortlists) {
  Search s(decoder, config, memory, max_lengths, options, search_rules(config, false, std::move(shortlists)),
           keep_logits);
  while (!s.done()) {
    s.hidden();
    s.project();
    s.consume_logits();
  }
  return s.take_results();
}

}  // namespace tformer
