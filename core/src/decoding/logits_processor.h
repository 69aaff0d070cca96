// The rules that change a step's scores before the search chooses from them, each a small
// processor, composed in a list (CTranslate2's LogitsProcessor and transformers.js's
// logits_process do the same). decoding/rules.h holds the engine's rules.
//
// The search never holds a row's whole log-softmax: only each row's best few tokens can enter the
// next beam, so the rules act on those (StepCandidates, filled by decoding/packed_candidates.h).
// For that to stay exact, a rule only ever takes probability away: it disables a candidate (its
// probability counts as 0) or forces one token (every other token's counts as 0), and it says up
// front how many candidates of a row it may disable at one step, so that each row carries that
// many more. A rule may also restrict, for the whole search, which target ids a sentence may
// produce at all (a lexical shortlist): the sentence's log-softmax then ranges over those ids
// only, as if the others' logits were -inf.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace tformer {

struct TokenLogProb {
  int token;
  float log_prob;
};

// One step's candidates: per live row, tokens that may follow it with their log-probabilities,
// and the log-probability of EOS, which is known whether or not EOS is among them, so that a rule
// can force it.
class StepCandidates {
 public:
  explicit StepCandidates(int eos_id = -1) : eos_id_(eos_id) {}

  // Empties the table: `rows` rows of at most `capacity` candidates each.
  void reset(size_t rows, size_t capacity);
  size_t rows() const { return counts_.size(); }
  int eos_id() const { return eos_id_; }
  void add(size_t row, int token, float log_prob) { items_[row * capacity_ + counts_[row]++] = {token, log_prob}; }
  void set_eos_log_prob(size_t row, float log_prob) { eos_[row] = log_prob; }

  const TokenLogProb* begin(size_t row) const { return &items_[row * capacity_]; }
  const TokenLogProb* end(size_t row) const { return begin(row) + counts_[row]; }
  float eos_log_prob(size_t row) const { return eos_[row]; }

  // The token is no longer a candidate of the row (nothing if it was not one).
  void disable(size_t row, int token);
  // The token is the row's only candidate: EOS with its log-probability, another token with its
  // candidate's (throws tformer::Error if it is not a candidate of the row).
  void force(size_t row, int token);

 private:
  int eos_id_;
  size_t capacity_ = 0;
  std::vector<TokenLogProb> items_;  // [rows, capacity]: row r's first counts_[r]
  std::vector<size_t> counts_;
  std::vector<float> eos_;
};

// A live hypothesis of the search: one row of a step.
struct LiveHypothesis {
  int sentence = 0;         // its sentence's index in the batch
  std::vector<int> tokens;  // chosen so far (no EOS)
  float score = 0.f;        // the float32 sum of their log-probabilities
};

// What a rule sees of the search at a step.
struct SearchStep {
  int step;                                 // the target position being chosen (0: the first)
  const std::vector<LiveHypothesis>& rows;  // the rows of the StepCandidates
  const std::vector<int>& max_lengths;      // per sentence: its target length limit, EOS included
};

class LogitsProcessor {
 public:
  virtual ~LogitsProcessor() = default;
  // The target ids that sentence s of the batch may produce, ascending, for the whole search;
  // null: every id.
  virtual const std::vector<int>* vocabulary(size_t sentence) const { return nullptr; }
  // A token that no row may produce at any step (-1: none). Each row's best candidates are
  // chosen without it, so that it takes no place among them.
  virtual int suppressed_token() const { return -1; }
  // The most candidates apply() disables in one row at one step (not counting the suppressed
  // token, nor the others of a row it forces a token in).
  virtual size_t disables_at_most() const { return 0; }
  // Disables or forces candidates of this step's rows.
  virtual void apply(const SearchStep& step, StepCandidates& candidates) const = 0;
};

// Rules applied one after the other, in the order they were added.
class LogitsProcessors {
 public:
  // Throws tformer::Error for a second rule with a suppressed token: the packed candidates
  // (decoding/packed_candidates.h) leave out one token.
  void add(std::unique_ptr<LogitsProcessor> rule);

  // Per sentence of a batch of `sentences`, the ids the rules let it produce, ascending (where
  // several restrict them, the ids all of them allow); empty when no rule restricts any. Throws
  // tformer::Error for ids that are not ascending ids of the vocabulary, or none left.
  std::vector<std::vector<int>> vocabularies(size_t sentences, int vocab_size) const;
  int suppressed_token() const { return suppressed_; }
  size_t disables_at_most() const;
  void apply(const SearchStep& step, StepCandidates& candidates) const;

 private:
  std::vector<std::unique_ptr<LogitsProcessor>> rules_;
  int suppressed_ = -1;
};

}  // namespace tformer
