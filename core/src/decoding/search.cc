#include "decoding/search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/ops.h"
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

// Log-probabilities of one row with the model's and the length rule's restrictions.
void step_log_probs(const ModelConfig& config, float* logits, bool force_eos) {
  const size_t V = size_t(config.vocab_size);
  ops::log_softmax(logits, V, logits);
  if (config.suppress_unk && config.unk_id >= 0) logits[config.unk_id] = kNegInf;
  if (force_eos) {
    const float eos = logits[config.eos_id];
    std::fill(logits, logits + V, kNegInf);
    logits[config.eos_id] = eos;
  }
}

}  // namespace

size_t looping_tokens(const std::vector<int>& tokens, int out[4]) {
  const size_t n = tokens.size();
  size_t count = 0;
  for (size_t p = 1; p <= 4; ++p) {
    const size_t repeats = p == 1 ? 4 : 3;  // a token 4 times, a group of 2-4 tokens 3 times
    const size_t span = repeats * p - 1;    // tokens already there that the new one would complete
    if (n < span) break;
    // tokens[k] == tokens[k - p] over the last span - p tokens, then the new one must equal tokens[n - p].
    bool loop = true;
    for (size_t k = n - span + p; k < n && loop; ++k) loop = tokens[k] == tokens[k - p];
    if (loop) out[count++] = tokens[n - p];
  }
  return count;
}

Search::Search(const Decoder& decoder, const ModelConfig& config, const EncoderOutput& memory,
               std::vector<int> max_lengths, const SearchOptions& options, bool keep_logits,
               std::vector<std::vector<int>> shortlists)
    : decoder_(decoder),
      config_(config),
      options_(options),
      keep_logits_(keep_logits),
      max_lengths_(std::move(max_lengths)),
      source_lengths_(memory.lengths),
      source_stride_(memory.max_length) {
  if (max_lengths_.size() != memory.batch)
    throw Error("search: " + std::to_string(max_lengths_.size()) + " length limits for a batch of " +
                std::to_string(memory.batch));
  const int longest = *std::max_element(max_lengths_.begin(), max_lengths_.end());
  state_ = decoder.start(memory, size_t(longest));
  rows_.resize(memory.batch);
  for (size_t b = 0; b < memory.batch; ++b) rows_[b].sentence = int(b);
  finished_.resize(memory.batch);
  if (!shortlists.empty()) {
    if (shortlists.size() != memory.batch)
      throw Error("search: " + std::to_string(shortlists.size()) + " shortlists for a batch of " +
                  std::to_string(memory.batch));
    shortlists_ = std::move(shortlists);
    for (const std::vector<int>& ids : shortlists_) {
      if (ids.empty() || !std::is_sorted(ids.begin(), ids.end()) || ids.front() < 0 || ids.back() >= config.vocab_size)
        throw Error("search: a shortlist must be ascending target ids");
      union_.insert(union_.end(), ids.begin(), ids.end());
    }
    std::sort(union_.begin(), union_.end());
    union_.erase(std::unique(union_.begin(), union_.end()), union_.end());
    for (const std::vector<int>& ids : shortlists_) {
      std::vector<int>& cols = columns_.emplace_back(ids.size());
      for (size_t i = 0; i < ids.size(); ++i)
        cols[i] = int(std::lower_bound(union_.begin(), union_.end(), ids[i]) - union_.begin());
    }
    union_projection_ = decoder.output().subset(union_);
  }
}

const std::vector<float>& Search::hidden() {
  if (done()) throw Error("search: hidden() after the search is done");
  if (!hidden_ready_) {
    tokens_.resize(rows_.size());
    for (size_t r = 0; r < rows_.size(); ++r) tokens_[r] = rows_[r].tokens.empty() ? -1 : rows_[r].tokens.back();
    decoder_.step_hidden(state_, tokens_, hidden_, options_.alignment ? &alignment_ : nullptr);
    logits_.ensure(rows_.size() * (shortlisted() ? union_.size() : size_t(config_.vocab_size)));
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
  if (shortlisted())
    union_projection_(hidden_.data(), rows_.size(), logits_.data());
  else
    decoder_.project(hidden_.data(), rows_.size(), logits_.data());
}

void Search::consume_logits() {
  if (!hidden_ready_) throw Error("search: consume_logits() before hidden() in this step");
  const size_t V = size_t(config_.vocab_size);
  if (keep_logits_ && !shortlisted()) {
    // With keep_logits (greedy, for the parity tests): the full rows, kept before the rules.
    advance([&](size_t r, bool force_eos, auto&& visit) {
      float* lp = &logits_[r * V];
      rows_[r].logits.emplace_back(lp, lp + V);
      step_log_probs(config_, lp, force_eos);
      for (size_t v = 0; v < V; ++v) visit(int(v), lp[v]);
    });
    return;
  }
  // Only each row's best 2K tokens (greedy: 1) can enter the next beam, and log_softmax keeps
  // the order of logits, so the rules run on those few (consume_candidates) instead of on V
  // log-probabilities per row: one pass for the max and the log-sum-exp, one to select. The
  // log-probabilities are the very numbers the full row would give, (logit - max) - log_sum.
  // With shortlists, each row's logits of its own sentence's ids, gathered in ascending id
  // order, go through the same passes as a whole row: so a sentence's numbers do not depend on
  // the other sentences of its batch (whose ids widen the union).
  const size_t rows = rows_.size(), k = candidates_per_row(), stride = 3 + 2 * k, U = union_.size();
  size_t longest = 0;
  for (const std::vector<int>& ids : shortlists_) longest = std::max(longest, ids.size());
  gathered_.resize(rows * longest);
  candidates_.resize(rows * stride);
  top_.resize(rows * k);
  const int unk = config_.suppress_unk && config_.unk_id >= 0 ? config_.unk_id : -1;
  // Rows are independent: on the layers' thread pool, as they would otherwise be the one serial
  // part of a step (two passes over V per row).
  profile::Scope timed(profile::Phase::kCandidates);
  decoder_.kernels().parallel_for(rows, [&](size_t r) {
    float* row = &candidates_[r * stride];
    int* top = &top_[r * k];
    if (!shortlisted()) return row_candidates(&logits_[r * V], V, nullptr, unk, config_.eos_id, row, top);
    const size_t s = size_t(rows_[r].sentence);
    const std::vector<int>& ids = shortlists_[s];
    const std::vector<int>& cols = columns_[s];
    float* x = &gathered_[r * longest];
    for (size_t i = 0; i < ids.size(); ++i) x[i] = logits_[r * U + size_t(cols[i])];
    auto column_of = [&](int id) {
      const auto it = std::lower_bound(ids.begin(), ids.end(), id);
      return it != ids.end() && *it == id ? int(it - ids.begin()) : -1;
    };
    // An EOS outside the list cannot be chosen (column -1: logit -inf).
    row_candidates(x, ids.size(), ids.data(), unk >= 0 ? column_of(unk) : -1, column_of(config_.eos_id), row, top);
  });
  timed.stop();
  if (keep_logits_) {
    // keep_logits with shortlists (greedy, the parity tests): the full rows, -inf outside the
    // row's list, before the rules run on the candidates as above.
    for (size_t r = 0; r < rows; ++r) {
      const size_t s = size_t(rows_[r].sentence);
      std::vector<float> full(V, kNegInf);
      for (size_t i = 0; i < shortlists_[s].size(); ++i)
        full[size_t(shortlists_[s][i])] = logits_[r * U + size_t(columns_[s][i])];
      rows_[r].logits.push_back(std::move(full));
    }
  }
  advance_with_candidates(candidates_.data());
}

void Search::row_candidates(const float* x, size_t n, const int* ids, int unk_column, int eos_column, float* row,
                            int* top) const {
  const size_t k = candidates_per_row();
  const size_t found = ops::top_k_and_log_sum_exp(x, n, k, unk_column, top, &row[0], &row[1]);
  row[2] = eos_column >= 0 ? x[eos_column] : kNegInf;
  for (size_t i = 0; i < k; ++i) {
    row[3 + 2 * i] = i < found ? x[top[i]] : kNegInf;  // -inf candidates are never taken
    const int column = i < found ? top[i] : -1;
    row[3 + 2 * i + 1] = float(column < 0 ? config_.eos_id : ids ? ids[column] : column);
  }
}

size_t Search::candidates_per_row() const {
  // With the guard, up to 4 candidates of a row may be blocked: 4 more keep the search exact.
  return (options_.beam_size <= 1 ? 1 : size_t(2 * options_.beam_size)) + (options_.repetition_guard ? 4 : 0);
}

void Search::consume_candidates(const float* rows) {
  if (!hidden_ready_) throw Error("search: consume_candidates() before hidden() in this step");
  if (keep_logits_) throw Error("search: keep_logits needs full logits");
  advance_with_candidates(rows);
}

void Search::advance_with_candidates(const float* rows) {
  const size_t k = candidates_per_row(), stride = 3 + 2 * k;
  advance([&](size_t r, bool force_eos, auto&& visit) {
    const float* row = rows + r * stride;
    const float m = row[0], log_sum = row[1];
    // The same log-probability as ops::log_softmax, from the row's max and log-sum-exp.
    auto log_prob = [&](float logit) { return (logit - m) - log_sum; };
    if (force_eos) return visit(config_.eos_id, log_prob(row[2]));
    for (size_t i = 0; i < k; ++i) {
      const int token = int(row[3 + 2 * i + 1]);
      if (!(config_.suppress_unk && token == config_.unk_id)) visit(token, log_prob(row[3 + 2 * i]));
    }
  });
}

template <typename Candidates>
void Search::advance(Candidates&& all_candidates) {
  profile::Scope timed(profile::Phase::kBookkeeping);
  hidden_ready_ = false;
  // The repetition guard: a row's looping tokens are left out of its candidates.
  auto candidates = [&](size_t r, bool force_eos, auto&& visit) {
    int blocked[4];
    const size_t count = options_.repetition_guard && !force_eos ? looping_tokens(rows_[r].tokens, blocked) : 0;
    if (count == 0) return all_candidates(r, force_eos, visit);
    all_candidates(r, force_eos, [&](int token, float lp) {
      if (std::find(blocked, blocked + count, token) == blocked + count) visit(token, lp);
    });
  };
  const size_t V = size_t(config_.vocab_size), S = source_stride_;
  const int K = std::max(1, options_.beam_size);
  const int step = step_++;
  std::vector<Row>& rows = rows_;
  std::vector<float>& alignment = alignment_;
  std::vector<Candidate>& heap = heap_;

  std::vector<Row> next;
  std::vector<int> parents;
  auto finish = [&](const Row& row, int token, float score, size_t r) {
    SearchHypothesis h;
    h.tokens = row.tokens;
    h.tokens.push_back(token);
    h.raw_score = score;
    h.score = normalized(score, h.tokens.size(), options_.length_penalty);
    if (options_.alignment) {
      h.alignment = row.alignment;
      h.alignment.insert(h.alignment.end(), &alignment[r * S], &alignment[r * S] + size_t(source_lengths_[size_t(row.sentence)]));
    }
    h.step_logits = row.logits;
    finished_[size_t(row.sentence)].push_back(std::move(h));
  };
  auto extend = [&](const Row& row, int token, float score, size_t r) {
    Row n;
    n.sentence = row.sentence;
    n.tokens = row.tokens;
    n.tokens.push_back(token);
    n.score = score;
    if (options_.alignment) {
      n.alignment = row.alignment;
      n.alignment.insert(n.alignment.end(), &alignment[r * S], &alignment[r * S] + size_t(source_lengths_[size_t(row.sentence)]));
    }
    n.logits = row.logits;
    next.push_back(std::move(n));
    parents.push_back(int(r));
  };

  // Rows of one sentence are contiguous: [begin, end).
  for (size_t begin = 0; begin < rows.size();) {
    const int sentence = rows[begin].sentence;
    size_t end = begin;
    while (end < rows.size() && rows[end].sentence == sentence) ++end;
    const bool force_eos = step == max_lengths_[size_t(sentence)] - 1;

    if (K == 1) {
      // The first maximum: the highest log-probability, then the lowest token id.
      int best = -1;
      float best_lp = kNegInf;
      candidates(begin, force_eos, [&](int token, float lp) {
        if (best < 0 || lp > best_lp || (lp == best_lp && token < best)) {
          best = token;
          best_lp = lp;
        }
      });
      if (best < 0 || best >= int(V)) throw Error("search: no candidate token for a hypothesis");
      const float score = rows[begin].score + best_lp;
      if (best == config_.eos_id) {
        finish(rows[begin], best, score, begin);
        left_.push_back(size_t(sentence));
      } else {
        extend(rows[begin], best, score, begin);
      }
      begin = end;
      continue;
    }

    // The best 2K candidates over all rows of the sentence, kept in a heap whose top is the
    // worst of them.
    const size_t keep = size_t(2 * K);
    heap.clear();
    for (size_t r = begin; r < end; ++r) {
      const float base = rows[r].score;
      candidates(r, force_eos, [&](int token, float lp) {
        const Candidate c{base + lp, int64_t((r - begin) * V) + token};
        if (c.score == kNegInf || token < 0 || token >= int(V)) return;
        if (heap.size() == keep && !ranks_before(c, heap.front())) return;
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), ranks_before<Candidate>);
        if (heap.size() > keep) {
          std::pop_heap(heap.begin(), heap.end(), ranks_before<Candidate>);
          heap.pop_back();
        }
      });
    }
    std::sort(heap.begin(), heap.end(), ranks_before<Candidate>);
    auto& done = finished_[size_t(sentence)];
    int live = 0;
    for (size_t rank = 0; rank < heap.size(); ++rank) {
      const size_t r = begin + size_t(heap[rank].index / int64_t(V));
      const int token = int(heap[rank].index % int64_t(V));
      if (token == config_.eos_id) {
        if (int(rank) < K && int(done.size()) < K) finish(rows[r], token, heap[rank].score, r);
      } else if (live < K) {
        extend(rows[r], token, heap[rank].score, r);
        ++live;
      }
    }
    if (int(done.size()) >= K) {
      // The sentence is done: drop the rows just added for it.
      while (!next.empty() && next.back().sentence == sentence) {
        next.pop_back();
        parents.pop_back();
      }
    }
    if (next.empty() || next.back().sentence != sentence) left_.push_back(size_t(sentence));
    begin = end;
  }
  rows = std::move(next);
  timed.stop();
  if (!rows.empty()) decoder_.select_rows(state_, parents);
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
  Search s(decoder, config, memory, max_lengths, options, keep_logits, std::move(shortlists));
  while (!s.done()) {
    s.hidden();
    s.project();
    s.consume_logits();
  }
  return s.take_results();
}

}  // namespace tformer
