// The second step of a translation (Bergamot's batcher): segments of similar length go into one
// encoder batch, so that padding stays small. The rule: sort by source length (stable, so equal
// lengths keep their input order), then fill each batch in that order while its padded size, its
// segments times the longest one's length, stays within max_batch_tokens; a segment longer than
// max_batch_tokens gets a batch of its own. And how long a segment's translation may grow.
#pragma once

#include <cstddef>
#include <vector>

#include "tformer/options.h"

namespace tformer {

// `lengths`: each segment's source tokens, BOS/EOS included. Returns batches of indices into
// `lengths`, each batch shortest first; every index is in exactly one batch.
std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& lengths, size_t max_batch_tokens);

// The most target tokens (EOS included) the search may give a segment of `source_length` tokens
// (BOS/EOS included): floor(max_length_ratio x source_length) + max_length_offset, at most
// options.max_length where that is positive, at most the model's `max_positions`, at least 1.
int max_target_length(size_t source_length, const TranslateOptions& options, int max_positions);

}  // namespace tformer
