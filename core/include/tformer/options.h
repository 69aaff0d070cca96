// Options of a translation request and of a translator instance.
#pragma once

#include <cstddef>
#include <string>

namespace tformer {

struct TranslateOptions {
  int beam_size = 1;              // 1 = greedy
  int nbest = 1;                  // hypotheses kept per sentence (<= beam_size)
  float length_penalty = 1.0f;    // hypotheses ranked by score / length^length_penalty
  float max_length_ratio = 2.0f;  // target length limit: ratio * source tokens + offset ...
  int max_length_offset = 0;
  int max_length = 0;             // ... and, when > 0, at most this many target tokens
  bool return_alignment = false;  // cross-attention weights of the last decoder layer
  bool split_sentences = true;    // paragraphs are split into sentences before translating
  size_t max_batch_tokens = 4096;  // source tokens (padded) per encoder batch
};

enum class BackendKind { kXnnpack, kReference };

struct TranslatorConfig {
  int threads = 1;  // XNNPACK thread pool size (1 = no extra threads)
  BackendKind backend = BackendKind::kXnnpack;
};

}  // namespace tformer
