// Bad and unusual input text through the public API: clear errors or sensible output, no crash.
#include <catch.hpp>

#include "fixtures.h"
#include "tformer/translator.h"
#include "util/utf8.h"

using namespace tformer;
using Catch::Matchers::Contains;

namespace {

Translator& translator() {
  static Translator t(testing::fixture_path("marian", "model.tfm"));
  return t;
}

std::string golden_greedy(size_t sentence) {
  return testing::read_lines(testing::fixture_path("marian", "expected.greedy.txt")).at(sentence);
}

}  // namespace

TEST_CASE("empty and blank input translate to empty output", "[input]") {
  const auto out = translator().translate({"", "   ", "\t \r", "\n\n"}, testing::plain_options());
  REQUIRE(out.size() == 4);
  for (const auto& t : out) {
    CHECK(t.text.empty());
    CHECK(t.sentences.empty());
  }
  CHECK(translator().translate({}, testing::plain_options()).empty());
}

TEST_CASE("malformed UTF-8 is refused with its position", "[input]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ok \xFF", "byte 0xFF at offset 3"},
      {"\xE2\x82", "byte 0xE2 at offset 0"},                 // truncated sequence
      {"a\xC0\xAF", "byte 0xC0 at offset 1"},                // overlong '/'
      {"ab\xED\xA0\x80", "byte 0xED at offset 2"},           // lone UTF-16 surrogate D800
      {"\xF4\x90\x80\x80", "byte 0xF4 at offset 0"},         // above U+10FFFF
      {"Katze \x80 Hund", "byte 0x80 at offset 6"},          // stray continuation byte
  };
  for (const auto& [text, where] : cases) {
    CAPTURE(text);
    REQUIRE_THROWS_WITH(translator().translate({"fine", text}, testing::plain_options()), Contains("input text 2 is not valid UTF-8: " + where));
  }
  // The translator stays usable afterwards.
  CHECK(translator().translate({"Die Katze schläft."}, testing::plain_options())[0].text == golden_greedy(2));
}

TEST_CASE("control characters and odd code points do not break anything", "[input]") {
  const std::vector<std::string> texts = {std::string("a\0b", 3), "\x01\x02\x07", "\x1B[31mrot\x1B[0m", "\xE2\x80\x8B",
                                          "\xF0\x9F\x98\x80 Hund", "\xEF\xBB\xBF" "Die Katze schläft."};
  const auto out = translator().translate(texts, testing::plain_options());
  REQUIRE(out.size() == texts.size());
  for (const auto& t : out) CHECK(find_invalid_utf8(t.text) == std::string_view::npos);
}

TEST_CASE("a 100 KB line is translated in pieces without error", "[input]") {
  std::string text;
  const std::string words[] = {"Hund", "Katze", "spielen", "im", "Schnee", "Fahrrad", "Mann", "gehen", "Park"};
  for (size_t i = 0; text.size() < 100 * 1024; ++i) text += words[i % 9] + " ";
  TranslateOptions o = testing::plain_options();
  o.max_input_chars = 0;  // no limit (the default, 100,000 characters, is below 100 KB)
  const auto out = translator().translate({text}, o);
  REQUIRE(out.size() == 1);
  // One unpunctuated "sentence", longer than the model's 128 positions: several pieces.
  CHECK(out[0].sentences.size() > 10);
  for (const auto& s : out[0].sentences) CHECK(s.source_tokens.size() <= 128);
  CHECK(!out[0].text.empty());
}

TEST_CASE("paragraphs are split into sentences and joined back", "[input]") {
  const auto out = translator().translate({"Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee.",
                                           "Die Katze schläft.\nWarum?"}, testing::plain_options());
  REQUIRE(out[0].sentences.size() == 2);
  CHECK(out[0].sentences[0].source == "Ein Mann fährt Fahrrad.");
  CHECK(out[0].sentences[1].source == "Zwei Hunde spielen im Schnee.");
  CHECK(out[0].text == golden_greedy(0) + " " + golden_greedy(1));
  REQUIRE(out[1].sentences.size() == 2);
  CHECK(out[1].text == golden_greedy(2) + "\n" + golden_greedy(4));

  TranslateOptions whole = testing::plain_options();
  whole.split_sentences = false;
  CHECK(translator().translate({"Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee."}, whole)[0].sentences.size() == 1);
}

TEST_CASE("invalid options are refused with a message", "[input]") {
  TranslateOptions o = testing::plain_options();
  o.beam_size = 0;
  REQUIRE_THROWS_WITH(translator().translate({"x"}, o), Contains("beam size must be between 1 and 64 (got 0)"));
  o = {};
  o.beam_size = 2;
  o.nbest = 3;
  REQUIRE_THROWS_WITH(translator().translate({"x"}, o), Contains("nbest must be between 1 and the beam size 2 (got 3)"));
  o = {};
  o.length_penalty = std::nanf("");
  REQUIRE_THROWS_WITH(translator().translate({"x"}, o), Contains("length penalty"));
  o = {};
  o.max_length = -1;
  REQUIRE_THROWS_WITH(translator().translate({"x"}, o), Contains("max length must not be negative"));
  TranslatorConfig c;
  c.threads = 0;
  REQUIRE_THROWS_WITH(Translator(testing::fixture_path("marian", "model.tfm"), c),
                      Contains("threads must be between 1 and 256 (got 0)"));
}

TEST_CASE("max_length bounds the output", "[input]") {
  TranslateOptions o = testing::plain_options();
  o.max_length = 3;
  for (int beam : {1, 4}) {
    o.beam_size = beam;
    const auto out = translator().translate({"Heute ist ein schöner Tag, und wir gehen in den Park."}, o);
    CHECK(out[0].sentences[0].hypotheses[0].tokens.size() <= 3);
  }
}

TEST_CASE("inputs longer than max_input_chars are refused; 0 lifts the limit", "[input]") {
  TranslateOptions o = testing::plain_options();
  CHECK(o.max_input_chars == 100000);  // the documented default
  o.max_input_chars = 10;
  // Ten characters, eleven bytes ("ä" is two): within the limit.
  CHECK(translator().translate({"Hund Mädch"}, o).size() == 1);
  REQUIRE_THROWS_WITH(translator().translate({"ok", "Die Katze schläft."}, o),
                      Contains("input text 2 has 18 characters, more than the limit of 10 per input"));
  o.max_input_chars = 0;
  CHECK(translator().translate({std::string(300, 'a')}, o).size() == 1);
  // The default refuses a 100,001-character word before any work on it.
  REQUIRE_THROWS_WITH(translator().translate({std::string(100001, 'x')}, testing::plain_options()),
                      Contains("input text 1 has 100001 characters, more than the limit of 100000 per input"));
}

TEST_CASE("max_sentence_tokens cuts long sentences into shorter pieces", "[input]") {
  const std::string text = "Ein Mann fährt Fahrrad und zwei Hunde spielen im Schnee";
  const auto whole = translator().translate({text}, testing::plain_options());
  REQUIRE(whole[0].sentences.size() == 1);
  const size_t tokens = whole[0].sentences[0].source_tokens.size() - 1;  // EOS only (Marian convention)
  TranslateOptions o = testing::plain_options();
  o.max_sentence_tokens = 4;
  const auto cut = translator().translate({text}, o);
  CHECK(cut[0].sentences.size() == (tokens + 3) / 4);
  for (const auto& s : cut[0].sentences) CHECK(s.source_tokens.size() <= 5);
  // Above the model's own limit it changes nothing.
  o.max_sentence_tokens = 100000;
  CHECK(translator().translate({text}, o)[0].text == whole[0].text);
  o.max_sentence_tokens = -1;
  REQUIRE_THROWS_WITH(translator().translate({text}, o), Contains("max sentence tokens must be 0"));
}
