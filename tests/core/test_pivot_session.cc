// PivotSession (tformer/pivot.h), a translation through a pivot language driven step by step: its
// sentences are the second model's translations of the first model's, one sentence per request
// (checked against the two models run one after the other by hand); a stream hands out each
// sentence once its second step ended, before the second model has seen the last one, numbered
// as results() has them; step() says whose request is pending.
#include <catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.h"
#include "tformer/pivot.h"
#include "tformer/translator.h"

using namespace tformer;
using Need = TranslationSession::Need;

namespace {

// Two fixture models one after the other (what they translate does not matter here): the first
// gives every golden sentence a non-empty translation, so that each goes through the second.
constexpr const char* kFirst = "marian-int8";
constexpr const char* kSecond = "marian-ssru";

std::vector<std::string> golden_texts(const std::string& variant) {
  const testing::Golden golden(variant);
  std::vector<std::string> texts;
  for (const auto& s : golden.json["sentences"]) texts.push_back(s["text"]);
  return texts;
}

std::vector<std::vector<int>> tokens_of(const std::vector<Translation>& results) {
  std::vector<std::vector<int>> out;
  for (const auto& r : results)
    for (const auto& s : r.sentences) out.push_back(s.hypotheses.at(0).tokens);
  return out;
}

struct Run {
  std::vector<Translation> results;
  std::vector<CompletedSentence> completed;
  std::vector<std::string> events;  // "encode 0", "project 1", "completed", in order
};

Run drive(PivotSession& session) {
  Run run;
  for (Need need = session.next();; need = session.next()) {
    for (auto& c : session.take_completed()) {
      run.completed.push_back(std::move(c));
      run.events.push_back("completed");
    }
    if (need == Need::kDone) break;
    run.events.push_back((need == Need::kEncode ? "encode " : "project ") + std::to_string(session.step()));
    session.pending().compute_on_cpu();
  }
  run.results = session.results();
  return run;
}

}  // namespace

TEST_CASE("a pivot translation is the second model's translation of each of the first's sentences", "[pivot]") {
  Translator first(testing::fixture_path(kFirst, "model.tfm")), second(testing::fixture_path(kSecond, "model.tfm"));
  const std::vector<std::string> t = golden_texts(kFirst);
  REQUIRE(t.size() >= 6);
  const std::vector<std::string> texts = {t[3] + " " + t[0] + " " + t[4], "", t[1] + "\n\n" + t[2], t[5]};
  const TranslateOptions options = testing::plain_options();

  // By hand: the first model, then each of its sentences alone through the second.
  std::vector<std::vector<int>> expected;
  TranslateOptions one = options;
  one.split_sentences = false;
  one.max_input_chars = 0;  // the first model's output is no user input to bound
  for (const auto& r : first.translate(texts, options))
    for (const auto& s : r.sentences) {
      REQUIRE_FALSE(s.hypotheses.at(0).text.empty());
      const std::vector<Translation> through = second.translate({s.hypotheses.at(0).text}, one);
      for (const auto& piece : through.at(0).sentences) expected.push_back(piece.hypotheses.at(0).tokens);
    }
  REQUIRE(expected.size() >= 6);

  PivotTranslator pivot(first, second);
  const std::vector<Translation> batched = pivot.translate(texts, options);
  CHECK(tokens_of(batched) == expected);
  CHECK(batched.at(1).text.empty());
  CHECK(batched.at(2).text.find("\n\n") != std::string::npos);  // the first model's line break
  // Each result sentence keeps the source sentence it came from.
  CHECK(batched.at(3).sentences.at(0).source == t[5]);

  // The same driven step by step, both ways.
  for (const bool stream : {false, true}) {
    CAPTURE(stream);
    auto session = pivot.begin(texts, options, stream);
    const Run run = drive(*session);
    CHECK(tokens_of(run.results) == expected);
    for (size_t p = 0; p < texts.size(); ++p) CHECK(run.results[p].text == batched[p].text);
  }
}

TEST_CASE("a pivot stream hands out each sentence when its second step ends", "[pivot][stream]") {
  Translator first(testing::fixture_path(kFirst, "model.tfm")), second(testing::fixture_path(kSecond, "model.tfm"));
  std::vector<std::string> t = golden_texts(kFirst);
  REQUIRE(t.size() >= 6);
  // The shortest sentence first: it ends while the first model still translates the others.
  t.resize(6);
  std::sort(t.begin(), t.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  const std::vector<std::string> texts = {t[0] + " " + t[3] + " " + t[5], t[1] + "\n\n" + t[4], t[2]};
  TranslateOptions options = testing::plain_options();
  options.return_alignment = true;
  PivotTranslator pivot(first, second);

  auto session = pivot.begin(texts, options, /*stream=*/true);
  const Run run = drive(*session);
  const std::vector<Translation> whole = pivot.translate(texts, options);
  REQUIRE(run.results.size() == whole.size());
  CHECK(tokens_of(run.results) == tokens_of(whole));

  // Every sentence once, in input order, where results() has it, joined as its text.
  REQUIRE(run.completed.size() == tokens_of(whole).size());
  REQUIRE(run.completed.size() >= 6);
  std::vector<std::string> joined(texts.size());
  for (size_t i = 0; i < run.completed.size(); ++i) {
    const CompletedSentence& c = run.completed[i];
    CAPTURE(i);
    CHECK(c.segment == i);
    const SentenceTranslation& r = run.results.at(c.paragraph).sentences.at(c.index);
    CHECK(c.sentence.hypotheses.at(0).tokens == r.hypotheses.at(0).tokens);
    CHECK(c.sentence.source == r.source);
    // The alignment composed through both steps: [target x source], rows summing to 1.
    REQUIRE(c.sentence.alignment.size() == c.sentence.target_pieces.size() * c.sentence.source_tokens.size());
    for (size_t row = 0; row < c.sentence.target_pieces.size(); ++row) {
      double sum = 0;
      for (size_t col = 0; col < c.sentence.source_tokens.size(); ++col) sum += c.sentence.alignment[row * c.sentence.source_tokens.size() + col];
      CHECK(sum == Approx(1.0).epsilon(1e-3));
    }
    CHECK(c.sentence.alignment == r.alignment);
    joined[c.paragraph] += c.separator + c.sentence.hypotheses.at(0).text;
  }
  for (size_t p = 0; p < texts.size(); ++p) CHECK(joined[p] == run.results[p].text);

  // Counted, not timed: the first sentence was handed out before the second model's last encode
  // request (the one holding the last sentences), and the second model took them in several.
  const auto first_out = std::find(run.events.begin(), run.events.end(), "completed");
  const auto last_second = std::find(run.events.rbegin(), run.events.rend(), "encode 1");
  REQUIRE(first_out != run.events.end());
  REQUIRE(last_second != run.events.rend());
  CHECK(first_out < last_second.base() - 1);
  CHECK(std::count(run.events.begin(), run.events.end(), "encode 1") >= 3);
  // And the first model was still translating then: its requests come after the first sentence.
  CHECK(std::find(first_out, run.events.end(), "project 0") != run.events.end());

  // Not streamed: the second model takes every sentence in one request, after the first model.
  auto batched = pivot.begin(texts, options, /*stream=*/false);
  const Run b = drive(*batched);
  CHECK(std::count(b.events.begin(), b.events.end(), "encode 1") == 1);
  CHECK(std::find(b.events.begin(), b.events.end(), "completed") > std::find(b.events.begin(), b.events.end(), "encode 1"));
}

TEST_CASE("a pivot session with HTML carries the markup through both steps and hands out nothing early", "[pivot]") {
  Translator first(testing::fixture_path(kFirst, "model.tfm")), second(testing::fixture_path(kSecond, "model.tfm"));
  const std::vector<std::string> t = golden_texts(kFirst);
  TranslateOptions html = testing::plain_options();
  html.html = true;
  PivotTranslator pivot(first, second);
  auto session = pivot.begin({"<p>" + t[0] + " <b>" + t[1] + "</b></p>"}, html, /*stream=*/true);
  const Run run = drive(*session);
  CHECK(run.completed.empty());
  CHECK(run.results.at(0).text.rfind("<p>", 0) == 0);
  CHECK(run.results.at(0).text.find("<b>") != std::string::npos);
  CHECK(run.results.at(0).text == pivot.translate({"<p>" + t[0] + " <b>" + t[1] + "</b></p>"}, html).at(0).text);
}

TEST_CASE("a pivot session refuses results before its end and bad input at the start", "[pivot]") {
  Translator first(testing::fixture_path(kFirst, "model.tfm")), second(testing::fixture_path(kSecond, "model.tfm"));
  PivotTranslator pivot(first, second);
  auto session = pivot.begin({"Ein Test."}, testing::plain_options(), true);
  CHECK_THROWS_AS(session->results(), Error);
  CHECK_THROWS_AS(pivot.begin({std::string("\xc3\x28")}, testing::plain_options(), true), Error);
  // An empty request is done at once.
  auto empty = pivot.begin({}, testing::plain_options(), true);
  CHECK(empty->next() == Need::kDone);
  CHECK(empty->results().empty());
}
