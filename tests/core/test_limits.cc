// The limits of TranslateOptions are stated once (tformer/options.h) and enforced by the engine;
// the npm package reads them from the engine (wasm/bindings/translate_options.cc limits()) instead of a copy.
#include <catch.hpp>

#include <string>

#include "fixtures.h"
#include "tformer/translator.h"

using namespace tformer;

TEST_CASE("the beam limit is kMaxBeamSize, and the refusal names it", "[limits]") {
  Translator t(testing::fixture_path("tutorial", "model.tfm"));
  TranslateOptions o;
  o.beam_size = kMaxBeamSize;
  CHECK_NOTHROW(t.begin({"Hallo"}, o));  // begin() validates as translate() does, without decoding
  o.beam_size = kMaxBeamSize + 1;
  try {
    t.begin({"Hallo"}, o);
    FAIL("a beam past kMaxBeamSize was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "invalid translate options: beam size must be between 1 and " +
                                       std::to_string(kMaxBeamSize) + " (got " + std::to_string(kMaxBeamSize + 1) + ")");
  }
  o.beam_size = 2;
  o.nbest = 3;
  CHECK_THROWS_WITH(t.begin({"Hallo"}, o), "invalid translate options: nbest must be between 1 and the beam size 2 (got 3)");
}
