// The option checks of tformer/options.h on their own (core/src/options.cc): each bad value is
// refused with the message that names it, each edge of a range is accepted, and the defaults pass.
#include <catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "tformer/options.h"
#include "tformer/error.h"

using namespace tformer;

namespace {

// The message validate() gives, or "" when it accepts the options.
template <typename Options>
std::string refusal(const Options& o) {
  try {
    validate(o);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("the default options are valid", "[options]") {
  CHECK(refusal(TranslateOptions{}) == "");
  CHECK(refusal(TranslatorConfig{}) == "");
}

TEST_CASE("each bad translate option is refused with its message", "[options]") {
  const std::string prefix = "invalid translate options: ";
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  TranslateOptions o;

  o.beam_size = 0;
  CHECK(refusal(o) == prefix + "beam size must be between 1 and 64 (got 0)");
  o.beam_size = kMaxBeamSize + 1;
  CHECK(refusal(o) == prefix + "beam size must be between 1 and 64 (got 65)");
  o.beam_size = kMaxBeamSize;
  o.nbest = kMaxBeamSize;
  CHECK(refusal(o) == "");

  o = {};
  o.beam_size = 4;
  o.nbest = 5;
  CHECK(refusal(o) == prefix + "nbest must be between 1 and the beam size 4 (got 5)");
  o.nbest = 0;
  CHECK(refusal(o) == prefix + "nbest must be between 1 and the beam size 4 (got 0)");

  o = {};
  for (float x : {-0.5f, 10.5f, nan, inf}) {
    o.length_penalty = x;
    CHECK(refusal(o).rfind(prefix + "length penalty must be between 0 and 10 (got ", 0) == 0);
  }
  o.length_penalty = 10.5f;
  CHECK(refusal(o) == prefix + "length penalty must be between 0 and 10 (got 10.5)");
  for (float x : {0.f, 10.f}) {
    o.length_penalty = x;
    CHECK(refusal(o) == "");
  }

  o = {};
  for (float x : {0.f, -1.f, 100.5f, nan, -inf}) {
    o.max_length_ratio = x;
    CHECK(refusal(o).rfind(prefix + "max length ratio must be in (0, 100] (got ", 0) == 0);
  }
  o.max_length_ratio = 0.f;
  CHECK(refusal(o) == prefix + "max length ratio must be in (0, 100] (got 0)");
  o.max_length_ratio = 100.f;
  CHECK(refusal(o) == "");

  o = {};
  o.max_length = -1;
  CHECK(refusal(o) == prefix + "max length must not be negative (got -1)");

  o = {};
  for (int x : {-10001, 10001}) {
    o.max_length_offset = x;
    CHECK(refusal(o) == prefix + "max length offset out of range");
  }
  for (int x : {-10000, 10000}) {
    o.max_length_offset = x;
    CHECK(refusal(o) == "");
  }

  o = {};
  o.max_batch_tokens = 0;
  CHECK(refusal(o) == prefix + "max batch tokens must be positive");

  o = {};
  o.max_sentence_tokens = -3;
  CHECK(refusal(o) == prefix + "max sentence tokens must be 0 (the model's limit) or positive (got -3)");
  o.max_sentence_tokens = 0;
  CHECK(refusal(o) == "");
}

TEST_CASE("the first bad option is the one named", "[options]") {
  TranslateOptions o;
  o.beam_size = 0;
  o.max_length = -1;
  CHECK(refusal(o) == "invalid translate options: beam size must be between 1 and 64 (got 0)");
}

TEST_CASE("threads outside 1..kMaxThreads are refused", "[options]") {
  TranslatorConfig c;
  for (int threads : {0, -1, kMaxThreads + 1}) {
    c.threads = threads;
    CHECK(refusal(c) == "threads must be between 1 and 256 (got " + std::to_string(threads) + ")");
  }
  for (int threads : {1, kMaxThreads}) {
    c.threads = threads;
    CHECK(refusal(c) == "");
  }
}
