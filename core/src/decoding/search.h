// Greedy and beam search over a batch of encoded sentences (the rules are stated once, in
// models/tformer/decode.py, and followed here exactly):
// - step scores are float32 log_softmax(logits); <unk> gets -inf when the model says so;
// - at a sentence's last allowed step only EOS may be chosen;
// - a hypothesis's score is the float32 sum of its step scores, ranked when finished by
//   score / length^length_penalty (length counts EOS);
// - beam search (size K) ranks candidates by summed score (ties: lower row, then lower token id),
//   looks at the best 2K: an EOS among the first K finishes a hypothesis, the others fill the next
//   beam up to K; a sentence is done when K hypotheses have finished. K = 1 is greedy search.
// Sentences that are done leave the batch; the others continue.
#pragma once

#include <vector>

#include "transformer/decoder.h"

namespace tformer {

struct SearchOptions {
  int beam_size = 1;
  int nbest = 1;
  float length_penalty = 1.f;
  bool alignment = false;
};

struct SearchHypothesis {
  std::vector<int> tokens;  // EOS included
  float raw_score = 0.f;
  double score = 0.0;
  std::vector<float> alignment;  // [tokens x source length], on request
  std::vector<std::vector<float>> step_logits;  // for tests: raw logits per step (greedy only)
};

// Returns, per sentence, up to `nbest` hypotheses, best first. max_lengths[s] >= 1 is the
// sentence's target length limit (EOS included). With keep_logits (greedy only) the raw logits
// of every step are kept, for the parity tests.
std::vector<std::vector<SearchHypothesis>> search(const Decoder& decoder, const ModelConfig& config,
                                                  const EncoderOutput& memory, const std::vector<int>& max_lengths,
                                                  const SearchOptions& options, bool keep_logits = false);

}  // namespace tformer
