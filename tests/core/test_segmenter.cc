// The segmenter on its own (core/src/translation/segmenter.*): input text -> segments. Source ids
// are the PyTorch reference's (each fixture's golden source_ids); cutting keeps BOS/EOS room
// within max_positions; sentences, lines and paragraphs are numbered as the response builder
// joins them; bad text is refused with the text's number.
#include <catch.hpp>

#include <string>
#include <vector>

#include "loaded_fixture.h"
#include "tformer/translator.h"
#include "translation/segmenter.h"

using namespace tformer;
using Catch::Contains;

namespace {

using Loaded = testing::LoadedFixture;

std::vector<Segment> segments_of(const Segmenter& s, const std::vector<std::string>& texts, const TranslateOptions& o) {
  std::vector<Segment> out;
  for (size_t p = 0; p < texts.size(); ++p) s.split(p, texts[p], o, out);
  return out;
}

// The ids of a source without the model's BOS/EOS.
std::vector<int> without_specials(const std::vector<int>& source, const ModelConfig& c) {
  return std::vector<int>(source.begin() + (c.source_bos ? 1 : 0), source.end() - (c.source_eos ? 1 : 0));
}

}  // namespace

TEST_CASE("segmenter: a sentence's source ids are the PyTorch reference's", "[segmenter]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  Loaded l(variant);
  const Segmenter segmenter(l.model.config, *l.model.source_tokenizer);
  TranslateOptions o;
  o.split_sentences = false;  // the fixtures' sentences are whole
  for (const auto& s : l.golden.json["sentences"]) {
    const std::string text = s["text"];
    CAPTURE(text);
    const auto segments = segments_of(segmenter, {text}, o);
    REQUIRE(segments.size() == 1);
    CHECK(segments[0].source == s["source_ids"].get<std::vector<int>>());
    CHECK(segments[0].text == text);
    // Each source token stands for bytes of the sentence, one after the other, up to its last character.
    const std::vector<ByteRange>& tokens = segments[0].source_tokens;
    REQUIRE(tokens.size() == without_specials(segments[0].source, l.model.config).size());
    for (size_t i = 1; i < tokens.size(); ++i) CHECK(tokens[i].begin == tokens[i - 1].end);
    if (!tokens.empty()) CHECK(tokens.back().end == text.find_last_not_of(' ') + 1);
    CHECK(segments[0].paragraph == 0);
    CHECK(segments[0].line == 0);
    CHECK(segments[0].kept.spans.empty());
    CHECK(!segments[0].alignment);
  }
}

TEST_CASE("segmenter: a long sentence is cut at max_positions, keeping room for BOS/EOS", "[segmenter]") {
  const std::string variant = GENERATE(as<std::string>{}, "tutorial", "marian");  // BOS+EOS, and EOS only
  CAPTURE(variant);
  Loaded l(variant);
  const auto& golden = l.golden.json["sentences"][3];  // "Heute ist ein schöner Tag, und wir gehen ..."
  const std::string text = golden["text"];
  ModelConfig c = l.model.config;
  const std::vector<int> ids = without_specials(golden["source_ids"].get<std::vector<int>>(), c);
  REQUIRE(ids.size() > 30);
  const size_t specials = size_t(c.source_bos) + size_t(c.source_eos);
  c.max_positions = int(10 + specials);  // pieces of 10 source tokens
  const Segmenter segmenter(c, *l.model.source_tokenizer);
  TranslateOptions o;
  CHECK(segmenter.max_piece_tokens(o) == 10);
  const auto segments = segments_of(segmenter, {text}, o);
  REQUIRE(segments.size() == (ids.size() + 9) / 10);
  std::vector<int> joined;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    CHECK(s.source.size() <= size_t(c.max_positions));
    CHECK(s.source.size() == std::min<size_t>(10, ids.size() - 10 * i) + specials);
    if (c.source_bos) CHECK(s.source.front() == c.bos_id);
    if (c.source_eos) CHECK(s.source.back() == c.eos_id);
    const std::vector<int> piece = without_specials(s.source, c);
    // A cut piece's text is its bytes of the input, from its first token's first character (this
    // text has nothing SentencePiece normalises: the same as its ids decoded).
    CHECK(s.text == text.substr(s.begin + s.text_at, s.text.size()));
    CHECK(s.text == l.model.source_tokenizer->decode(piece));
    CHECK((i == 0) == (s.text_at == 0));
    CHECK(s.line == 0);
    joined.insert(joined.end(), piece.begin(), piece.end());
  }
  CHECK(joined == ids);  // consecutive pieces, nothing lost or repeated

  // max_sentence_tokens cuts shorter where it is smaller than the model's limit, never longer.
  o.max_sentence_tokens = 4;
  CHECK(segmenter.max_piece_tokens(o) == 4);
  CHECK(segments_of(segmenter, {text}, o).size() == (ids.size() + 3) / 4);
  o.max_sentence_tokens = 50;
  CHECK(segmenter.max_piece_tokens(o) == 10);

  // A model whose positions hold only BOS/EOS cannot translate anything.
  c.max_positions = int(specials);
  const Segmenter no_room(c, *l.model.source_tokenizer);
  CHECK_THROWS_WITH(segments_of(no_room, {text}, TranslateOptions{}),
                    "the model's max_positions leaves no room for a source token");
}

TEST_CASE("segmenter: sentences, lines and paragraphs are numbered in input order", "[segmenter]") {
  Loaded l("marian");
  const Segmenter segmenter(l.model.config, *l.model.source_tokenizer);
  TranslateOptions o;
  o.return_alignment = true;
  const auto segments = segments_of(segmenter, {"Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee.\n\nWarum?", "",
                                                "  \n", "Die Katze schläft."}, o);
  REQUIRE(segments.size() == 4);
  const std::vector<std::string> texts = {"Ein Mann fährt Fahrrad.", "Zwei Hunde spielen im Schnee.", "Warum?",
                                          "Die Katze schläft."};
  const std::vector<size_t> paragraphs = {0, 0, 0, 3}, lines = {0, 0, 2, 0};
  for (size_t i = 0; i < segments.size(); ++i) {
    CHECK(segments[i].text == texts[i]);
    CHECK(segments[i].paragraph == paragraphs[i]);
    CHECK(segments[i].line == lines[i]);
    CHECK(segments[i].alignment);
  }
  // The sentences' ids are those of the golden fixture.
  CHECK(segments[1].source == l.golden.json["sentences"][1]["source_ids"].get<std::vector<int>>());

  o.split_sentences = false;  // a line is one sentence, trimmed
  const auto whole = segments_of(segmenter, {"  Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee.\t"}, o);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].text == "Ein Mann fährt Fahrrad. Zwei Hunde spielen im Schnee.");

  // Blank lines and texts give no segment.
  CHECK(segments_of(segmenter, {"", " \t", "\n\n"}, TranslateOptions{}).empty());
}

TEST_CASE("segmenter: bad text is refused with its number", "[segmenter]") {
  Loaded l("marian");
  const Segmenter segmenter(l.model.config, *l.model.source_tokenizer);
  TranslateOptions o;
  std::vector<Segment> out;
  CHECK_THROWS_WITH(segmenter.split(2, "gut\xC3", o, out), Contains("input text 3 is not valid UTF-8"));
  o.max_input_chars = 5;
  CHECK_THROWS_WITH(segmenter.split(0, "Schnee", o, out),
                    Contains("input text 1 has 6 characters, more than the limit of 5 per input"));
  CHECK(out.empty());
  segmenter.split(0, "Hündä", o, out);  // five characters, seven bytes
  CHECK(out.size() == 1);
}

TEST_CASE("segmenter: passthrough takes spans out of the source, but not from a sentence it cuts", "[segmenter]") {
  Loaded l("marian");
  const Segmenter segmenter(l.model.config, *l.model.source_tokenizer);
  TranslateOptions o;
  o.passthrough = true;
  const auto segments = segments_of(segmenter, {"Ich habe 😀 Katzen."}, o);
  REQUIRE(segments.size() == 1);
  REQUIRE(segments[0].kept.spans.size() == 1);
  CHECK(segments[0].kept.spans[0].text == "😀");
  CHECK(segments[0].text == "Ich habe 😀 Katzen.");  // the sentence as typed
  std::vector<int> expected = l.model.source_tokenizer->encode(segments[0].kept.text);
  expected.push_back(l.model.config.eos_id);
  CHECK(segments[0].source == expected);  // what the model reads: without the span
  // A number stays for the model, marked to be checked in the translation.
  const auto number = segments_of(segmenter, {"Ich habe 3 Katzen."}, o);
  REQUIRE(number.size() == 1);
  CHECK(number[0].kept.spans.empty());
  REQUIRE(number[0].kept.numbers.size() == 1);
  CHECK(number[0].kept.text.substr(number[0].kept.numbers[0].begin, number[0].kept.numbers[0].size()) == "3");
  expected = l.model.source_tokenizer->encode("Ich habe 3 Katzen.");
  expected.push_back(l.model.config.eos_id);
  CHECK(number[0].source == expected);

  o.max_sentence_tokens = 3;  // cut into pieces: translated as typed, nothing kept aside
  const auto cut = segments_of(segmenter, {"Ich habe 😀 Katzen."}, o);
  REQUIRE(cut.size() > 1);
  std::vector<int> joined;
  for (const Segment& s : cut) {
    CHECK(s.kept.spans.empty());
    CHECK(s.kept.numbers.empty());
    CHECK(!s.kept.verbatim);
    joined.insert(joined.end(), s.source.begin(), s.source.end() - 1);
  }
  CHECK(joined == l.model.source_tokenizer->encode("Ich habe 😀 Katzen."));
}
