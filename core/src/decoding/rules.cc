#include "decoding/rules.h"

#include <algorithm>
#include <string>

#include "tformer/error.h"

namespace tformer {

const std::vector<int>* RestrictToShortlist::vocabulary(size_t sentence) const {
  if (sentence >= ids_.size())
    throw Error("search: " + std::to_string(ids_.size()) + " shortlists for a batch of more sentences");
  return &ids_[sentence];
}

void SuppressToken::apply(const SearchStep& step, StepCandidates& candidates) const {
  for (size_t r = 0; r < candidates.rows(); ++r) candidates.disable(r, token_);
}

void ForceEndAtLimit::apply(const SearchStep& step, StepCandidates& candidates) const {
  for (size_t r = 0; r < candidates.rows(); ++r)
    if (step.step == step.max_lengths[size_t(step.rows[r].sentence)] - 1) candidates.force(r, candidates.eos_id());
}

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

void RepetitionGuard::apply(const SearchStep& step, StepCandidates& candidates) const {
  int blocked[4];
  for (size_t r = 0; r < candidates.rows(); ++r) {
    const size_t count = looping_tokens(step.rows[r].tokens, blocked);
    for (size_t i = 0; i < count; ++i) candidates.disable(r, blocked[i]);
  }
}

LogitsProcessors search_rules(const ModelConfig& config, bool repetition_guard,
                              std::vector<std::vector<int>> shortlists) {
  LogitsProcessors rules;
  if (!shortlists.empty()) rules.add(std::make_unique<RestrictToShortlist>(std::move(shortlists)));
  if (config.suppress_unk && config.unk_id >= 0) rules.add(std::make_unique<SuppressToken>(config.unk_id));
  if (repetition_guard) rules.add(std::make_unique<RepetitionGuard>());
  rules.add(std::make_unique<ForceEndAtLimit>());
  return rules;
}

}  // namespace tformer
