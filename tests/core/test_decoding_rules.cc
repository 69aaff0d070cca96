// The decoding rules as processors (core/src/decoding/logits_processor.h, rules.h): what each rule
// does to a step's candidates, how a list of them composes and what it refuses; the packed
// candidate rows (packed_candidates.h) against ops::log_softmax; the shortlist projection
// (layers/output_projection.h) against the whole projection; and a rule added to a real search
// changing its choice as the rule says.
#include <catch.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "decoding/packed_candidates.h"
#include "decoding/rules.h"
#include "decoding/search.h"
#include "fixtures.h"
#include "kernels/kernels.h"
#include "kernels/ops.h"
#include "layers/output_projection.h"
#include "model/model_file.h"
#include "tformer/error.h"
#include "transformer/model.h"

namespace tformer {
bool operator==(const TokenLogProb& a, const TokenLogProb& b) { return a.token == b.token && a.log_prob == b.log_prob; }
}  // namespace tformer

using namespace tformer;
using Catch::Matchers::Contains;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr int kEos = 2;

std::vector<TokenLogProb> row_of(const StepCandidates& c, size_t r) { return {c.begin(r), c.end(r)}; }

std::vector<int> tokens_of(const StepCandidates& c, size_t r) {
  std::vector<int> out;
  for (const TokenLogProb* t = c.begin(r); t != c.end(r); ++t) out.push_back(t->token);
  return out;
}

// Disables one token at one step: a rule of the kind a caller adds to the model's.
class DisableAtStep : public LogitsProcessor {
 public:
  DisableAtStep(int step, int token) : step_(step), token_(token) {}
  size_t disables_at_most() const override { return 1; }
  void apply(const SearchStep& step, StepCandidates& candidates) const override {
    if (step.step != step_) return;
    for (size_t r = 0; r < candidates.rows(); ++r) candidates.disable(r, token_);
  }

 private:
  int step_, token_;
};

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 2.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

TEST_CASE("decoding rules: a row's candidates are disabled in place, and EOS can always be forced", "[decoding-rules]") {
  StepCandidates c(kEos);
  c.reset(2, 4);
  c.add(0, 5, -1.f);
  c.add(0, 7, -2.f);
  c.add(0, 9, -3.f);
  c.set_eos_log_prob(0, -4.f);
  c.add(1, 3, -0.5f);
  c.add(1, 4, -1.f);
  c.set_eos_log_prob(1, -6.f);

  c.disable(0, 7);
  CHECK(row_of(c, 0) == std::vector<TokenLogProb>{{5, -1.f}, {9, -3.f}});  // the order is kept
  c.disable(0, 42);  // not a candidate: nothing
  CHECK(tokens_of(c, 0) == std::vector<int>{5, 9});
  // EOS is no candidate of row 0, yet forcing it gives it its own log-probability.
  c.force(0, kEos);
  CHECK(row_of(c, 0) == std::vector<TokenLogProb>{{kEos, -4.f}});
  c.force(1, 4);
  CHECK(row_of(c, 1) == std::vector<TokenLogProb>{{4, -1.f}});
  // Another token's log-probability is known only from its candidate.
  CHECK_THROWS_WITH(c.force(1, 8), Contains("forces token 8, which is not a candidate"));
}

TEST_CASE("decoding rules: a list composes the rules' vocabularies and refuses what it cannot honour", "[decoding-rules]") {
  LogitsProcessors none;
  none.add(std::make_unique<ForceEndAtLimit>());
  CHECK(none.vocabularies(2, 50).empty());

  // Two restrictions: each sentence keeps the ids both allow.
  LogitsProcessors two;
  two.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{{1, 3, 5, 7}, {2, 4}}));
  two.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{{3, 5, 9}, {2, 4, 6}}));
  CHECK(two.vocabularies(2, 50) == std::vector<std::vector<int>>{{3, 5}, {2, 4}});

  LogitsProcessors disjoint;
  disjoint.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{{1}}));
  disjoint.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{{2}}));
  CHECK_THROWS_WITH(disjoint.vocabularies(1, 50), Contains("no target id"));

  for (const std::vector<int>& bad : std::vector<std::vector<int>>{{3, 1}, {1, 1}, {-1, 2}, {1, 50}, {}}) {
    CAPTURE(bad);
    LogitsProcessors rules;
    rules.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{bad}));
    CHECK_THROWS_AS(rules.vocabularies(1, 50), Error);
  }
  // A batch with more sentences than shortlists: an error, not a read past the lists.
  LogitsProcessors short_of_lists;
  short_of_lists.add(std::make_unique<RestrictToShortlist>(std::vector<std::vector<int>>{{1, 2}}));
  CHECK_THROWS_WITH(short_of_lists.vocabularies(2, 50), Contains("1 shortlists for a batch of more sentences"));

  // The packed rows leave out one token: a second, different one is refused.
  LogitsProcessors suppressing;
  suppressing.add(std::make_unique<SuppressToken>(1));
  suppressing.add(std::make_unique<SuppressToken>(1));
  CHECK(suppressing.suppressed_token() == 1);
  CHECK_THROWS_WITH(suppressing.add(std::make_unique<SuppressToken>(3)), Contains("two rules suppress a token"));
}

TEST_CASE("decoding rules: the model's rules and what they cost in candidates", "[decoding-rules]") {
  ModelConfig config;
  config.vocab_size = 50;
  config.eos_id = kEos;
  config.unk_id = 1;
  config.suppress_unk = true;
  const LogitsProcessors plain = search_rules(config, false);
  CHECK(plain.suppressed_token() == 1);
  CHECK(plain.disables_at_most() == 0);
  CHECK(plain.vocabularies(1, config.vocab_size).empty());
  const LogitsProcessors guarded = search_rules(config, true, {{2, 5, 8}});
  CHECK(guarded.disables_at_most() == 4);
  CHECK(guarded.vocabularies(1, config.vocab_size) == std::vector<std::vector<int>>{{2, 5, 8}});
  config.suppress_unk = false;
  CHECK(search_rules(config, false).suppressed_token() == -1);
}

TEST_CASE("decoding rules: each rule does what decode.py says", "[decoding-rules]") {
  std::vector<LiveHypothesis> rows(3);
  rows[0] = {0, {7, 5, 5, 5}, -1.f};  // would repeat 5 a fourth time
  rows[1] = {1, {4, 6}, -1.f};
  rows[2] = {1, {6, 6}, -1.f};
  const std::vector<int> max_lengths = {3, 5};
  StepCandidates c(kEos);
  auto fill = [&] {
    c.reset(rows.size(), 4);
    for (size_t r = 0; r < rows.size(); ++r) {
      c.add(r, 5, -0.1f);
      c.add(r, 1, -0.2f);
      c.add(r, kEos, -0.3f);
      c.add(r, 8, -0.4f);
      c.set_eos_log_prob(r, -0.3f);
    }
  };

  SECTION("<unk> is never a candidate") {
    fill();
    SuppressToken(1).apply(SearchStep{0, rows, max_lengths}, c);
    for (size_t r = 0; r < rows.size(); ++r) CHECK(tokens_of(c, r) == std::vector<int>{5, kEos, 8});
  }
  SECTION("at a sentence's last step only EOS, with its own log-probability; earlier, nothing changes") {
    fill();
    ForceEndAtLimit().apply(SearchStep{2, rows, max_lengths}, c);  // sentence 0's last step (limit 3)
    CHECK(row_of(c, 0) == std::vector<TokenLogProb>{{kEos, -0.3f}});
    CHECK(tokens_of(c, 1) == std::vector<int>{5, 1, kEos, 8});
    CHECK(tokens_of(c, 2) == std::vector<int>{5, 1, kEos, 8});
    fill();
    ForceEndAtLimit().apply(SearchStep{4, rows, max_lengths}, c);  // sentence 1's
    CHECK(tokens_of(c, 1) == std::vector<int>{kEos});
    CHECK(tokens_of(c, 2) == std::vector<int>{kEos});
  }
  SECTION("the repetition guard takes out a row's looping tokens only") {
    fill();
    RepetitionGuard().apply(SearchStep{4, rows, max_lengths}, c);
    CHECK(tokens_of(c, 0) == std::vector<int>{1, kEos, 8});
    CHECK(tokens_of(c, 1) == std::vector<int>{5, 1, kEos, 8});
    CHECK(tokens_of(c, 2) == std::vector<int>{5, 1, kEos, 8});  // 6 twice is no loop yet
  }
}

TEST_CASE("packed candidates: the log-probabilities are log_softmax's, the suppressed token left out", "[decoding-rules]") {
  const size_t n = 300, k = 5;
  std::vector<float> x = random_floats(n, 7);
  const int skip = 3;
  x[skip] = 50.f;  // the row's max, so it would be the first candidate
  std::vector<float> log_probs(n);
  ops::log_softmax(x.data(), n, log_probs.data());

  std::vector<float> packed(packed_floats(k));
  std::vector<int> top(k);
  pack_candidates(x.data(), n, nullptr, skip, kEos, kEos, k, packed.data(), top.data());
  StepCandidates c(kEos);
  unpack_candidates(packed.data(), 1, k, c);
  std::vector<int> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  expected.erase(expected.begin() + skip);
  std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) { return x[size_t(a)] > x[size_t(b)]; });
  expected.resize(k);
  CHECK(tokens_of(c, 0) == expected);
  // The very numbers of the full row's log-softmax, which still counts the suppressed token.
  for (const TokenLogProb* t = c.begin(0); t != c.end(0); ++t) CHECK(t->log_prob == log_probs[size_t(t->token)]);
  CHECK(c.eos_log_prob(0) == log_probs[kEos]);

  // Over a vocabulary of 3 ids (a shortlist): columns map to ids, EOS is not among them, and the
  // places past the 3 are never-taken (-inf, EOS) entries.
  const std::vector<float> y = {0.5f, 2.f, -1.f};
  const std::vector<int> ids = {4, 10, 11};
  pack_candidates(y.data(), y.size(), ids.data(), -1, -1, kEos, k, packed.data(), top.data());
  unpack_candidates(packed.data(), 1, k, c);
  CHECK(tokens_of(c, 0) == std::vector<int>{10, 4, 11, kEos, kEos});
  CHECK(c.begin(0)[3].log_prob == kNegInf);
  CHECK(c.begin(0)[4].log_prob == kNegInf);
  CHECK(c.eos_log_prob(0) == kNegInf);
  std::vector<float> y_log_probs(3);
  ops::log_softmax(y.data(), y.size(), y_log_probs.data());
  CHECK(c.begin(0)[0].log_prob == y_log_probs[1]);
}

TEST_CASE("shortlist projection: each row's logits are the whole projection's at its sentence's ids", "[decoding-rules]") {
  const size_t d = 16, vocab = 40, rows = 3;
  const std::vector<float> weights = random_floats(vocab * d, 1), bias = random_floats(vocab, 2);
  std::vector<int8_t> int8_weights(vocab * d);
  std::vector<float> scales(vocab);
  for (size_t v = 0; v < vocab; ++v) {
    scales[v] = 0.05f + 0.001f * float(v);
    for (size_t i = 0; i < d; ++i) int8_weights[v * d + i] = int8_t(int(v * 7 + i * 13) % 255 - 127);
  }
  const std::vector<float> hidden = random_floats(rows * d, 3);
  const std::vector<std::vector<int>> ids = {{0, 5, 20, 39}, {1, 5, 9}};
  const std::vector<int> row_sentence = {1, 0, 1};

  const std::string kernels_name = GENERATE(as<std::string>{}, "xnnpack", "reference");
  const bool int8 = GENERATE(false, true);
  CAPTURE(kernels_name, int8);
  auto kernels = kernels_name == "reference" ? make_reference_kernels() : make_xnnpack_kernels(2);
  const OutputProjection output = int8 ? OutputProjection(*kernels, int8_weights.data(), scales.data(), bias, d, vocab)
                                       : OutputProjection(*kernels, weights.data(), bias, d, vocab);
  std::vector<float> full(rows * vocab);
  output(hidden.data(), rows, full.data());

  ShortlistProjection shortlisted(output, ids);
  REQUIRE(shortlisted.width() == 4);
  std::vector<float> logits(rows * shortlisted.width(), 0.f);
  shortlisted(hidden.data(), rows, row_sentence, logits.data());
  // The same weights, bias and scales: the reference kernels and int8 give the very same
  // numbers; XNNPACK's f32 kernels for another output width may sum in another order (f32
  // rounding: within the 1e-4 the parity tests allow).
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<int>& own = ids[size_t(row_sentence[r])];
    for (size_t i = 0; i < own.size(); ++i) {
      const float expected = full[r * vocab + size_t(own[i])];
      if (kernels_name == "reference" || int8)
        CHECK(logits[r * 4 + i] == expected);
      else
        CHECK(logits[r * 4 + i] == Approx(expected).margin(1e-4));
    }
  }

  for (const std::vector<int>& bad : std::vector<std::vector<int>>{{}, {5, 1}, {1, 40}, {-1, 3}}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(ShortlistProjection(output, {bad}), Contains("a shortlist must be ascending target ids"));
  }
}

TEST_CASE("search: a rule added to the model's changes the choice as it says", "[decoding-rules]") {
  auto kernels = make_xnnpack_kernels(1);
  const ModelFile file = ModelFile::from_path(testing::fixture_path("marian", "model.tfm"));
  const TransformerModel model(*kernels, file);
  const ModelConfig& config = model.config();
  // The golden data's first sentence, which the plain greedy search translates with 30 tokens.
  const testing::Golden golden("marian");
  const std::vector<int> source = golden.json["sentences"][0]["source_ids"];
  const EncoderOutput memory = model.encoder().forward({source});
  const int max_length = golden.json["sentences"][0]["max_length"];

  auto run = [&](LogitsProcessors rules) {
    Search s(model.decoder(), config, memory, {max_length}, SearchOptions{}, std::move(rules), /*keep_logits=*/true);
    while (!s.done()) {
      s.hidden();
      s.project();
      s.consume_logits();
    }
    return s.take_results().at(0).at(0);
  };
  const SearchHypothesis plain = run(search_rules(config, false));
  REQUIRE(plain.tokens.size() >= 2);
  const int first = plain.tokens[0];
  LogitsProcessors rules = search_rules(config, false);
  rules.add(std::make_unique<DisableAtStep>(0, first));
  const SearchHypothesis changed = run(std::move(rules));

  // Its first token is the best of step 0's logits but the disabled one (and <unk>, if the model
  // suppresses it): the first maximum, as greedy search takes it.
  const std::vector<float>& step0 = plain.step_logits.at(0);
  int expected = -1;
  for (int v = 0; v < int(step0.size()); ++v) {
    if (v == first || (config.suppress_unk && v == config.unk_id)) continue;
    if (expected < 0 || step0[size_t(v)] > step0[size_t(expected)]) expected = v;
  }
  CHECK(changed.tokens.at(0) == expected);
  CHECK(changed.tokens.at(0) != first);
  CHECK(changed.step_logits.at(0) == step0);  // the same model and source: the same first step
}
