// The decoder's in-place beam reordering against a plain gather into a second buffer: every kind of
// parents a beam step can produce (kept, duplicated, shifted after a finished sentence, swapped,
// rotated, shrunk) and random ones.
#include <catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "util/gather_rows.h"

using namespace tformer;

namespace {

void check_gather(size_t old_rows, const std::vector<int>& parents) {
  const size_t stride = 7, used = 5;
  std::vector<float> rows(old_rows * stride);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = float(i);
  std::vector<float> want(parents.size() * stride);
  for (size_t i = 0; i < parents.size(); ++i)
    for (size_t j = 0; j < used; ++j) want[i * stride + j] = rows[size_t(parents[i]) * stride + j];
  RawBuffer<float> stash;
  gather_rows_in_place(rows.data(), old_rows, stride, used, parents, stash);
  for (size_t i = 0; i < parents.size(); ++i)
    for (size_t j = 0; j < used; ++j) {
      CAPTURE(old_rows, parents, i, j);
      REQUIRE(rows[i * stride + j] == want[i * stride + j]);
    }
}

}  // namespace

TEST_CASE("gather_rows_in_place equals a plain gather", "[decoder]") {
  check_gather(4, {0, 1, 2, 3});                    // identity
  check_gather(4, {0, 0, 1, 2});                    // a beam: best row kept, others shifted down
  check_gather(4, {1, 0, 3, 2});                    // two swaps (cycles of two)
  check_gather(5, {1, 2, 3, 4, 0});                 // one rotation (a cycle of five)
  check_gather(8, {4, 5, 6, 7});                    // a finished sentence's rows dropped before others
  check_gather(8, {0, 1, 6, 7, 6, 6});              // shrink, reading rows past the new end
  check_gather(3, {2, 2, 2});
  check_gather(1, {});
  std::mt19937 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t old_rows = 1 + rng() % 12, n = 1 + rng() % old_rows;
    std::vector<int> parents(n);
    if (trial % 2) {  // permutations: only cycles and fixed points
      std::vector<int> perm(old_rows);
      for (size_t i = 0; i < old_rows; ++i) perm[i] = int(i);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (size_t i = 0; i < n; ++i) parents[i] = perm[i];
    } else {
      for (int& p : parents) p = int(rng() % old_rows);
    }
    check_gather(old_rows, parents);
  }
}
