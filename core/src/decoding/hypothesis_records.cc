#include "decoding/hypothesis_records.h"

#include <limits>

namespace tformer {

HypothesisRecords::HypothesisRecords(bool alignment, bool logits, bool log_probs, std::vector<int> source_lengths,
                                     size_t source_stride)
    : alignment_(alignment),
      logits_(logits),
      log_probs_(log_probs),
      source_lengths_(std::move(source_lengths)),
      source_stride_(source_stride),
      rows_(source_lengths_.size()) {}

void HypothesisRecords::keep_logits(size_t row, const float* x, size_t n, const int* ids, size_t vocab) {
  if (!ids) {
    rows_[row].step_logits.emplace_back(x, x + n);
    return;
  }
  std::vector<float> full(vocab, -std::numeric_limits<float>::infinity());
  for (size_t c = 0; c < n; ++c) full[size_t(ids[c])] = x[c];
  rows_[row].step_logits.push_back(std::move(full));
}

HypothesisRecord HypothesisRecords::continued(size_t row, int sentence, float log_prob) const {
  HypothesisRecord record = rows_[row];
  if (log_probs_) record.log_probs.push_back(log_prob);
  if (alignment_) {
    const float* weights = &step_alignment_[row * source_stride_];
    record.alignment.insert(record.alignment.end(), weights, weights + size_t(source_lengths_[size_t(sentence)]));
  }
  return record;
}

}  // namespace tformer
