// A step's scores packed as each row's best candidates: what the WebGPU backend computes on the
// GPU so that only a few numbers per row travel back (TranslationSession::provide_candidates
// states the layout for the API), and what the CPU computes from full logits the same way, so
// that one path feeds the search. Per row, packed_floats(k) floats: the row's max logit m,
// log_sum = log(sum(exp(logit - m))), the logit of EOS, then (logit, token id) pairs of the best
// k tokens by logit (ties: lower id), the suppressed token (decoding/logits_processor.h) left
// out. The best 2K candidates of a sentence lie within its rows' best 2K, so beam search (size
// K) needs k = 2K and greedy k = 1, plus what the rules may disable.
#pragma once

#include <cstddef>

#include "decoding/logits_processor.h"

namespace tformer {

constexpr size_t packed_floats(size_t k) { return 3 + 2 * k; }

// Packs one row from its logits x[0, n): column c is token ids[c] (ids null: token c). The
// suppressed token's column `skip` and EOS's column `eos_column` are -1 when not among them (EOS
// then has logit -inf). Fewer than k columns: the rest are (-inf, eos_id), never taken. `top` is
// scratch room for k ints.
void pack_candidates(const float* x, size_t n, const int* ids, int skip, int eos_column, int eos_id, size_t k,
                     float* row, int* top);

// The log-probabilities of `rows` packed rows into `out` (reset to rows x k): those
// ops::log_softmax gives from the full row, (logit - m) - log_sum.
void unpack_candidates(const float* packed, size_t rows, size_t k, StepCandidates& out);

}  // namespace tformer
