#include "util/gather_rows.h"

#include <cstring>

namespace tformer {

void gather_rows_in_place(float* rows, size_t old_rows, size_t stride, size_t used, const std::vector<int>& parents,
                          RawBuffer<float>& stash) {
  const size_t n = parents.size();
  std::vector<size_t> source(n);  // where row i copies from: an old row, or old_rows + k for stash slot k
  std::vector<int> readers(n, 0);  // pending rows that still read row j's old contents
  std::vector<size_t> ready;
  size_t pending = 0;
  for (size_t i = 0; i < n; ++i) {
    source[i] = size_t(parents[i]);
    if (source[i] == i) continue;
    ++pending;
    if (source[i] < n) ++readers[source[i]];
  }
  for (size_t i = 0; i < n; ++i)
    if (source[i] != i && readers[i] == 0) ready.push_back(i);
  size_t stashed = 0;
  const auto row = [&](size_t s) { return s < old_rows ? rows + s * stride : stash.data() + (s - old_rows) * stride; };
  while (pending > 0) {
    if (ready.empty()) {
      // Only cycles are left: park one pending row's contents, redirect its readers there.
      size_t c = 0;
      while (source[c] == c || readers[c] == 0) ++c;
      if (stashed == 0) stash.ensure(n * stride);
      std::memcpy(stash.data() + stashed * stride, rows + c * stride, used * sizeof(float));
      for (size_t i = 0; i < n; ++i)
        if (source[i] == c && i != c) source[i] = old_rows + stashed;
      ++stashed;
      readers[c] = 0;
      ready.push_back(c);
    }
    const size_t i = ready.back();
    ready.pop_back();
    std::memcpy(rows + i * stride, row(source[i]), used * sizeof(float));
    const size_t s = source[i];
    source[i] = i;
    --pending;
    if (s < n && --readers[s] == 0 && source[s] != s) ready.push_back(s);
  }
}

}  // namespace tformer
