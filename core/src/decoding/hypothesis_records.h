// What the search keeps of each hypothesis besides its tokens and score, step by step: the
// alignment of each target token (its row of cross-attention weights over the sentence's source),
// the log-probability of each token (for word confidence), and, for the parity tests, the raw
// logits of each step. A hypothesis that continues a row
// takes a copy of the row's record with this step's entries added.
#pragma once

#include <cstddef>
#include <vector>

namespace tformer {

struct HypothesisRecord {
  std::vector<float> alignment;                  // [tokens x source length], when kept
  std::vector<std::vector<float>> step_logits;  // per step: [vocab] raw logits, when kept
  std::vector<float> log_probs;                  // per token: its step score, when kept
};

class HypothesisRecords {
 public:
  // One empty record per sentence (the first rows of a search). `source_stride`: the padded
  // source length, the row stride of the decoder's alignment rows.
  HypothesisRecords(bool alignment, bool logits, bool log_probs, std::vector<int> source_lengths,
                    size_t source_stride);

  // Where the decoder writes this step's alignment rows [rows, source_stride]; null when off.
  std::vector<float>* step_alignment() { return alignment_ ? &step_alignment_ : nullptr; }
  bool keeps_logits() const { return logits_; }
  // Keeps this step's raw logits of row r: n values, value c being token ids[c] (ids null: token
  // c), of a vocabulary of `vocab` (the rest -inf).
  void keep_logits(size_t row, const float* x, size_t n, const int* ids, size_t vocab);
  // The record of a hypothesis that continues row r (of `sentence`) with this step's token, whose
  // step score (its log-probability as the rules left it) is `log_prob`.
  HypothesisRecord continued(size_t row, int sentence, float log_prob) const;
  // The next step's rows, each continuing a row of this one (continued()).
  void next_step(std::vector<HypothesisRecord> rows) { rows_ = std::move(rows); }

 private:
  bool alignment_, logits_, log_probs_;
  std::vector<int> source_lengths_;
  size_t source_stride_;
  std::vector<HypothesisRecord> rows_;
  std::vector<float> step_alignment_;
};

}  // namespace tformer
