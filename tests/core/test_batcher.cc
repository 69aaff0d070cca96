// The batcher on its own (core/src/translation/batcher.*): the length rule that groups segments
// into encoder batches, and the target length limit of each segment (against the PyTorch
// reference's max_length in the golden fixtures).
#include <catch.hpp>

#include <algorithm>
#include <vector>

#include "fixtures.h"
#include "translation/batcher.h"

using namespace tformer;
using Batches = std::vector<std::vector<size_t>>;

namespace {

// Every index in exactly one batch; each batch shortest first and within the padded budget
// unless it holds a single segment.
void check_invariants(const std::vector<size_t>& lengths, const Batches& batches, size_t max_tokens) {
  std::vector<size_t> seen;
  for (const auto& batch : batches) {
    REQUIRE(!batch.empty());
    size_t longest = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (i) CHECK(lengths[batch[i - 1]] <= lengths[batch[i]]);
      longest = std::max(longest, lengths[batch[i]]);
      seen.push_back(batch[i]);
    }
    if (batch.size() > 1) CHECK(batch.size() * longest <= max_tokens);
  }
  std::sort(seen.begin(), seen.end());
  std::vector<size_t> all(lengths.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  CHECK(seen == all);
}

}  // namespace

TEST_CASE("batcher: segments are sorted by length and fill batches up to the padded budget", "[batcher]") {
  // Lengths 5, 3, 8, 3, 4: sorted 3 (1), 3 (3), 4 (4), 5 (0), 8 (2).
  const std::vector<size_t> lengths = {5, 3, 8, 3, 4};
  // 12 tokens: 1, 3 (2 x 3 = 6), + 4 (3 x 4 = 12) | 0 (5), + 2 would be 2 x 8 = 16 | 2.
  CHECK(make_batches(lengths, 12) == Batches{{1, 3, 4}, {0}, {2}});
  // 16 tokens: 1, 3, 4 (12), + 0 would be 4 x 5 = 20 | 0, 2 (2 x 8 = 16).
  CHECK(make_batches(lengths, 16) == Batches{{1, 3, 4}, {0, 2}});
  // Room for all: 5 x 8 = 40.
  CHECK(make_batches(lengths, 40) == Batches{{1, 3, 4, 0, 2}});
  CHECK(make_batches(lengths, 39) == Batches{{1, 3, 4, 0}, {2}});
  // A budget below every length: one segment per batch, shortest first, equal lengths in input order.
  CHECK(make_batches(lengths, 1) == Batches{{1}, {3}, {4}, {0}, {2}});
  for (size_t budget : {1, 5, 7, 12, 16, 25, 100}) check_invariants(lengths, make_batches(lengths, budget), budget);
}

TEST_CASE("batcher: equal lengths keep input order, and no segments give no batches", "[batcher]") {
  CHECK(make_batches({}, 4096).empty());
  CHECK(make_batches({7, 7, 7, 7, 7}, 14) == Batches{{0, 1}, {2, 3}, {4}});
  std::vector<size_t> many;
  for (size_t i = 0; i < 200; ++i) many.push_back(1 + (i * 37) % 50);
  for (size_t budget : {50, 128, 4096}) check_invariants(many, make_batches(many, budget), budget);
}

TEST_CASE("batcher: the target length limit is the PyTorch reference's", "[batcher]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const testing::Golden golden(variant);
  TranslateOptions o;
  o.max_length_ratio = golden.json["max_length_ratio"].get<float>();
  const int max_positions = golden.json["config"]["max_positions"];
  for (const auto& s : golden.json["sentences"])
    CHECK(max_target_length(s["source_ids"].size(), o, max_positions) == s["max_length"].get<int>());
}

TEST_CASE("batcher: the target length limit's ratio, offset, cap and floor", "[batcher]") {
  TranslateOptions o;  // ratio 2, offset 0, no cap
  CHECK(max_target_length(10, o, 512) == 20);
  o.max_length_ratio = 1.5f;
  CHECK(max_target_length(5, o, 512) == 7);  // floor(7.5)
  o.max_length_offset = 3;
  CHECK(max_target_length(5, o, 512) == 10);
  o.max_length = 8;  // a cap where positive
  CHECK(max_target_length(5, o, 512) == 8);
  CHECK(max_target_length(5, o, 6) == 6);  // never past the model's positions
  o = {};
  o.max_length_offset = -100;
  CHECK(max_target_length(5, o, 512) == 1);  // at least one token (EOS)
  o = {};
  o.max_length_ratio = 100.f;
  CHECK(max_target_length(1000, o, 128) == 128);
}
