// The engine's errors carry what a caller acts on (tformer/error.h): a code, the phase, the detail
// and, for one input text, its index; the CLI and the bindings word them from these fields alone.
// Each kind of refusal is checked through the public API, field by field.
#include <catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "fixtures.h"
#include "tformer/error.h"
#include "tformer/marian.h"
#include "tformer/translator.h"

using namespace tformer;

namespace {

template <typename F>
Error caught(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no tformer::Error was thrown");
  return Error("");
}

Translator& translator() {
  static Translator t(testing::fixture_path("marian", "model.tfm"));
  return t;
}

}  // namespace

TEST_CASE("a bad option: kInvalidOptions in phase kRequest, about no input", "[errors]") {
  TranslateOptions o;
  o.beam_size = 0;
  const Error e = caught([&] { translator().translate({"Hallo."}, o); });
  CHECK(e.code() == ErrorCode::kInvalidOptions);
  CHECK(e.phase() == Phase::kRequest);
  CHECK_FALSE(e.input().has_value());
  CHECK(e.detail() == "invalid translate options: beam size must be between 1 and 64 (got 0)");
  CHECK(std::string(e.what()) == e.detail());
}

TEST_CASE("a bad text: its index, and the detail that reads after its name", "[errors]") {
  const Error utf8 = caught([] { translator().translate({"gut", "ok \xFF"}); });
  CHECK(utf8.code() == ErrorCode::kInvalidText);
  CHECK(utf8.phase() == Phase::kRequest);
  CHECK(utf8.input() == std::optional<size_t>(1));
  CHECK(utf8.detail() == "is not valid UTF-8: byte 0xFF at offset 3");
  CHECK(std::string(utf8.what()) == "input text 2 is not valid UTF-8: byte 0xFF at offset 3");

  TranslateOptions o;
  o.max_input_chars = 3;
  const Error long_text = caught([&] { translator().translate({"vier"}, o); });
  CHECK(long_text.code() == ErrorCode::kTextTooLong);
  CHECK(long_text.input() == std::optional<size_t>(0));
  CHECK(long_text.detail() == "has 4 characters, more than the limit of 3 per input");

  o = {};
  o.html = true;
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<b>";
  const Error html = caught([&] { translator().translate({"<p>ok</p>", deep}, o); });
  CHECK(html.code() == ErrorCode::kInvalidText);
  CHECK(html.input() == std::optional<size_t>(1));
  CHECK(html.detail().rfind("cannot be read as HTML: HTML elements nest deeper than 256", 0) == 0);
}

TEST_CASE("a session call out of order: kWrongState in the call's phase, with the calls that fit", "[errors]") {
  auto s = translator().begin({"Hallo Welt."});
  const Error idle = caught([&] { s->compute_on_cpu(); });
  CHECK(idle.code() == ErrorCode::kWrongState);
  CHECK(idle.phase() == Phase::kComputeOnCpu);
  CHECK(idle.calls_that_fit() == std::vector<Phase>{Phase::kNext});
  CHECK(idle.detail() == "has no request to answer");

  REQUIRE(s->next() == TranslationSession::Need::kEncode);
  const Error pending = caught([&] { s->next(); });
  CHECK(pending.phase() == Phase::kNext);
  CHECK(pending.calls_that_fit() == std::vector<Phase>{Phase::kProvideEncoderOutput, Phase::kComputeOnCpu});
  const Error finished = caught([&] { s->results(); });
  CHECK(finished.phase() == Phase::kResults);
  CHECK(finished.code() == ErrorCode::kWrongState);

  const std::vector<float> few(3, 0.f);
  const Error values = caught([&] { s->provide_encoder_output(few.data(), few.size()); });
  CHECK(values.code() == ErrorCode::kInvalidValues);
  CHECK(values.phase() == Phase::kProvideEncoderOutput);
  CHECK(values.calls_that_fit().empty());
  CHECK(values.detail().rfind("got 3 values, ", 0) == 0);
}

TEST_CASE("a model or config the engine cannot load: phase kLoad", "[errors]") {
  const std::vector<uint8_t> junk(64, 'x');
  const Error model = caught([&] { Translator t(junk); });
  CHECK(model.code() == ErrorCode::kInvalidModel);
  CHECK(model.phase() == Phase::kLoad);
  const Error missing = caught([] { Translator t(testing::fixture_path("marian", "no-such-model.tfm")); });
  CHECK(missing.code() == ErrorCode::kInvalidModel);
  CHECK(missing.phase() == Phase::kLoad);
  TranslatorConfig c;
  c.threads = 0;
  const Error threads = caught([&] { Translator t(testing::fixture_path("marian", "model.tfm"), c); });
  CHECK(threads.code() == ErrorCode::kInvalidOptions);
  CHECK(threads.phase() == Phase::kLoad);
}

TEST_CASE("a Marian folder the importer refuses: kInvalidModel in phase kImport", "[errors]") {
  const Error e = caught([] { import_marian({{"model.npz", {1, 2, 3}}}); });
  CHECK(e.code() == ErrorCode::kInvalidModel);
  CHECK(e.phase() == Phase::kImport);
  CHECK_FALSE(e.detail().empty());
}

TEST_CASE("in() fills only what the thrower left open; names are stable", "[errors]") {
  Error open("something failed");
  CHECK(open.in(Phase::kLoad, ErrorCode::kInvalidModel).code() == ErrorCode::kInvalidModel);
  CHECK(open.phase() == Phase::kLoad);
  Error given(ErrorCode::kResources, Phase::kImport, "out of memory");
  given.in(Phase::kLoad, ErrorCode::kInvalidModel);
  CHECK(given.code() == ErrorCode::kResources);
  CHECK(given.phase() == Phase::kImport);
  CHECK(std::string(code_name(ErrorCode::kTextTooLong)) == "text_too_long");
  CHECK(std::string(phase_name(Phase::kProvideLogits)) == "provide_logits");
  CHECK(join_alternatives({"a()", "b()", "c()"}) == "a(), b() or c()");
}
