#include "decoding/logits_processor.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <string>

#include "tformer/error.h"

namespace tformer {

void StepCandidates::reset(size_t rows, size_t capacity) {
  capacity_ = capacity;
  items_.resize(rows * capacity);
  counts_.assign(rows, 0);
  eos_.resize(rows);
}

void StepCandidates::disable(size_t row, int token) {
  TokenLogProb* first = &items_[row * capacity_];
  TokenLogProb* last = first + counts_[row];
  // Stable, so the candidates keep their order.
  counts_[row] = size_t(std::remove_if(first, last, [&](const TokenLogProb& c) { return c.token == token; }) - first);
}

void StepCandidates::force(size_t row, int token) {
  TokenLogProb* first = &items_[row * capacity_];
  float log_prob = eos_[row];
  if (token != eos_id_) {
    const TokenLogProb* it = std::find_if(first, first + counts_[row], [&](const TokenLogProb& c) { return c.token == token; });
    if (it == first + counts_[row])
      throw Error("search: a rule forces token " + std::to_string(token) + ", which is not a candidate");
    log_prob = it->log_prob;
  }
  if (capacity_ == 0) throw Error("search: a rule forces a token in a row without candidates");
  first[0] = {token, log_prob};
  counts_[row] = 1;
}

void LogitsProcessors::add(std::unique_ptr<LogitsProcessor> rule) {
  const int suppressed = rule->suppressed_token();
  if (suppressed >= 0 && suppressed_ >= 0 && suppressed != suppressed_)
    throw Error("search: two rules suppress a token each; the search leaves out one");
  if (suppressed >= 0) suppressed_ = suppressed;
  rules_.push_back(std::move(rule));
}

std::vector<std::vector<int>> LogitsProcessors::vocabularies(size_t sentences, int vocab_size) const {
  std::vector<std::vector<int>> out(sentences);
  std::vector<bool> restricted(sentences, false);
  bool any = false;
  for (const auto& rule : rules_) {
    for (size_t s = 0; s < sentences; ++s) {
      const std::vector<int>* ids = rule->vocabulary(s);
      if (!ids) continue;
      if (!std::is_sorted(ids->begin(), ids->end()) || std::adjacent_find(ids->begin(), ids->end()) != ids->end() ||
          (!ids->empty() && (ids->front() < 0 || ids->back() >= vocab_size)))
        throw Error("search: a rule's vocabulary must be ascending target ids");
      any = true;
      if (!restricted[s]) {
        out[s] = *ids;
        restricted[s] = true;
        continue;
      }
      std::vector<int> both;
      std::set_intersection(out[s].begin(), out[s].end(), ids->begin(), ids->end(), std::back_inserter(both));
      out[s] = std::move(both);
    }
  }
  if (!any) return {};
  for (size_t s = 0; s < sentences; ++s) {
    if (!restricted[s]) {
      out[s].resize(size_t(vocab_size));
      std::iota(out[s].begin(), out[s].end(), 0);
    }
    if (out[s].empty()) throw Error("search: the rules leave a sentence no target id to produce");
  }
  return out;
}

size_t LogitsProcessors::disables_at_most() const {
  size_t n = 0;
  for (const auto& rule : rules_) n += rule->disables_at_most();
  return n;
}

void LogitsProcessors::apply(const SearchStep& step, StepCandidates& candidates) const {
  for (const auto& rule : rules_) rule->apply(step, candidates);
}

}  // namespace tformer
