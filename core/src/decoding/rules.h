// The engine's decoding rules, as processors of a step's candidates (decoding/logits_processor.h).
// Each rule but the repetition guard is stated once, in the PyTorch reference
// (models/tformer/decode.py), and followed here exactly; the comment of each names its place there.
// search_rules() lists them in the reference's order: the shortlist (before the log-softmax), then
// <unk>, then the repetition guard, then the length limit, whose forced EOS is final.
#pragma once

#include <vector>

#include "decoding/logits_processor.h"
#include "model/config.h"

namespace tformer {

// decode.py shortlist_mask: a sentence scores only the target ids of its lexical shortlist
// (decoding/shortlist.h): its log-softmax ranges over them, as if the others' logits were -inf.
class RestrictToShortlist : public LogitsProcessor {
 public:
  // Per sentence of the batch, its shortlisted ids, ascending.
  explicit RestrictToShortlist(std::vector<std::vector<int>> ids) : ids_(std::move(ids)) {}
  const std::vector<int>* vocabulary(size_t sentence) const override;
  void apply(const SearchStep&, StepCandidates&) const override {}

 private:
  std::vector<std::vector<int>> ids_;
};

// decode.py step_log_probs: <unk> gets -inf when the model says so (ModelConfig::suppress_unk),
// after the log-softmax, which still counts it.
class SuppressToken : public LogitsProcessor {
 public:
  explicit SuppressToken(int token) : token_(token) {}
  int suppressed_token() const override { return token_; }
  void apply(const SearchStep& step, StepCandidates& candidates) const override;

 private:
  int token_;
};

// decode.py step_log_probs (force_eos): at a sentence's last allowed step (max_length - 1) only
// EOS may be chosen, with its own log-probability.
class ForceEndAtLimit : public LogitsProcessor {
 public:
  void apply(const SearchStep& step, StepCandidates& candidates) const override;
};

// The repetition guard (TranslateOptions::repetition_guard; not a rule of the reference, so off
// for the parity tests) stops the loops small models fall into on long sentences ("then then,
// then, then"): a token that would make the hypothesis end with the same token four times in a
// row, or with the same 2-, 3- or 4-token group three times in a row, is not a candidate (its
// probability counts as 0), so the search takes the next best token, often EOS. It never blocks
// EOS. Repeats that are not back to back ("the cat and the dog") are untouched.
class RepetitionGuard : public LogitsProcessor {
 public:
  size_t disables_at_most() const override { return 4; }  // one per group length
  void apply(const SearchStep& step, StepCandidates& candidates) const override;
};

// The repetition guard's rule: the tokens that may not follow `tokens` (at most 4, one per group
// length 1..4), written to `out`; returns how many.
size_t looping_tokens(const std::vector<int>& tokens, int out[4]);

// The rules of a search with this model: its shortlist (`shortlists`: per sentence its ids, or
// empty for none), <unk> suppression (if the model asks for it), the repetition guard (if asked
// for) and the length limit.
LogitsProcessors search_rules(const ModelConfig& config, bool repetition_guard,
                              std::vector<std::vector<int>> shortlists = {});

}  // namespace tformer
