#include "translation/batcher.h"

#include <algorithm>
#include <cmath>

namespace tformer {

std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& lengths, size_t max_batch_tokens) {
  std::vector<size_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::vector<size_t>> batches;
  for (size_t begin = 0; begin < order.size();) {
    size_t end = begin + 1;
    // Sorted, so the segment being added is the longest: it sets the padded length.
    while (end < order.size() && (end - begin + 1) * lengths[order[end]] <= max_batch_tokens) ++end;
    batches.emplace_back(order.begin() + long(begin), order.begin() + long(end));
    begin = end;
  }
  return batches;
}

int max_target_length(size_t source_length, const TranslateOptions& o, int max_positions) {
  long long n = static_cast<long long>(std::floor(double(o.max_length_ratio) * double(source_length))) + o.max_length_offset;
  if (o.max_length > 0) n = std::min<long long>(n, o.max_length);
  return int(std::max<long long>(1, std::min<long long>(n, max_positions)));
}

}  // namespace tformer
