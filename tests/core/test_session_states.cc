// The session's state machine (core/src/translation/session.*) seen from its requests: one encode
// request per batch the batcher plans, in its order, padded with pad_id; then one projection
// request per decoding step, whose rows are the sentences still decoding; kDone once, then for
// good. (tests/core/test_session.cc checks the results and the refusals of calls out of order.)
#include <catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "fixtures.h"
#include "tformer/translator.h"
#include "translation/batcher.h"

using namespace tformer;
using Need = TranslationSession::Need;

namespace {

struct Step {
  Need need;
  TranslationSession::EncodeRequest request;  // kEncode
  size_t rows = 0;                            // kProject
};

std::vector<Step> drive(TranslationSession& s) {
  std::vector<Step> steps;
  for (Need need = s.next();; need = s.next()) {
    Step step{need, {}, 0};
    if (need == Need::kEncode) step.request = s.encode_request();
    if (need == Need::kProject) s.hidden(&step.rows);
    steps.push_back(step);
    if (need == Need::kDone) break;
    s.compute_on_cpu();
  }
  return steps;
}

}  // namespace

TEST_CASE("session states: an encode request per planned batch, then a projection per step", "[session-states]") {
  const std::string variant = GENERATE(as<std::string>{}, "tutorial", "marian");
  CAPTURE(variant);
  const testing::Golden golden(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  std::vector<std::string> texts;
  std::vector<size_t> lengths;
  for (const auto& s : golden.json["sentences"]) {
    texts.push_back(s["text"]);
    lengths.push_back(s["source_ids"].size());
  }
  TranslateOptions o = testing::plain_options();
  o.split_sentences = false;
  o.max_batch_tokens = 40;  // several batches
  o.max_length_ratio = golden.json["max_length_ratio"].get<float>();
  const auto batches = make_batches(lengths, o.max_batch_tokens);
  REQUIRE(batches.size() > 1);

  auto session = translator.begin(texts, o);
  const std::vector<Step> steps = drive(*session);
  const std::vector<Translation> results = session->results();
  CHECK(steps.back().need == Need::kDone);
  CHECK(std::count_if(steps.begin(), steps.end(), [](const Step& s) { return s.need == Need::kDone; }) == 1);

  size_t at = 0;
  for (const auto& batch : batches) {
    REQUIRE(at < steps.size());
    REQUIRE(steps[at].need == Need::kEncode);
    const auto& r = steps[at].request;
    REQUIRE(r.batch == batch.size());
    size_t longest = 0;
    for (size_t i : batch) longest = std::max(longest, lengths[i]);
    CHECK(r.length == longest);
    for (size_t b = 0; b < batch.size(); ++b) {
      const auto source = golden.json["sentences"][batch[b]]["source_ids"].get<std::vector<int>>();
      CHECK(r.lengths[b] == int32_t(source.size()));
      std::vector<int> row(r.ids.begin() + long(b * r.length), r.ids.begin() + long((b + 1) * r.length));
      std::vector<int> padded = source;
      padded.resize(r.length, golden.json["config"]["pad_id"].get<int>());
      CHECK(row == padded);
    }
    ++at;
    // Greedy: step t decodes the sentences whose translation has more than t tokens (EOS included).
    size_t longest_output = 0;
    for (size_t i : batch) longest_output = std::max(longest_output, results[i].best(0).tokens.size());
    for (size_t t = 0; t < longest_output; ++t, ++at) {
      REQUIRE(at < steps.size());
      REQUIRE(steps[at].need == Need::kProject);
      size_t decoding = 0;
      for (size_t i : batch) decoding += results[i].best(0).tokens.size() > t;
      CHECK(steps[at].rows == decoding);
    }
  }
  CHECK(at == steps.size() - 1);

  // Done stays done, and the results can be asked again.
  CHECK(session->next() == Need::kDone);
  CHECK(session->results()[0].text == results[0].text);
  CHECK_THROWS_WITH(session->compute_on_cpu(), "compute_on_cpu() has no request to answer (call next())");
}

TEST_CASE("session states: beam search's projection rows are the live hypotheses", "[session-states]") {
  Translator translator(testing::fixture_path("tutorial", "model.tfm"));
  TranslateOptions o = testing::plain_options();
  o.beam_size = 3;
  auto session = translator.begin({"Die Katze schläft."}, o);
  REQUIRE(session->next() == Need::kEncode);
  CHECK(session->encode_request().batch == 1);
  session->compute_on_cpu();
  REQUIRE(session->next() == Need::kProject);
  size_t rows = 0;
  session->hidden(&rows);
  CHECK(rows >= 1);
  CHECK(rows <= 3);
  CHECK(session->candidates_per_row() == 6);  // 2 x beam size
  for (size_t guard = 0; guard < 1000; ++guard) {
    session->compute_on_cpu();
    const Need need = session->next();
    if (need == Need::kDone) break;
    REQUIRE(need == Need::kProject);  // one sentence: no second encode
    session->hidden(&rows);
    CHECK(rows <= 3);
  }
  CHECK(session->results().size() == 1);
}
