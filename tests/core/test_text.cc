// UTF-8 validation and sentence splitting.
#include <catch.hpp>

#include "text/sentence_splitter.h"
#include "text/sentencepiece_text.h"
#include "tformer/error.h"
#include "util/utf8.h"

using namespace tformer;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  for (const auto& span : split_sentences(s)) out.push_back(s.substr(span.begin, span.end - span.begin));
  return out;
}

}  // namespace

TEST_CASE("UTF-8 validation accepts every well-formed sequence and finds the first bad byte", "[text]") {
  CHECK(find_invalid_utf8("") == std::string_view::npos);
  CHECK(find_invalid_utf8("Grüße, 你好, \xF0\x9F\x98\x80") == std::string_view::npos);
  CHECK(find_invalid_utf8("\xEF\xBF\xBF\xF4\x8F\xBF\xBF") == std::string_view::npos);  // U+FFFF, U+10FFFF
  CHECK(find_invalid_utf8("ab\xC3") == 2);
  CHECK(find_invalid_utf8("\xE0\x80\x80") == 0);  // overlong
  CHECK(find_invalid_utf8("x\xED\xBF\xBF") == 1);  // surrogate DFFF
  CHECK(find_invalid_utf8("\xF8\x88\x80\x80\x80") == 0);
}

TEST_CASE("sentence splitting", "[text]") {
  CHECK(split("One. Two! Three? Four") == std::vector<std::string>{"One.", "Two!", "Three?", "Four"});
  CHECK(split("  Ein Satz.  ") == std::vector<std::string>{"Ein Satz."});
  CHECK(split("Er sagte: \"Hallo.\" Dann ging er.") == std::vector<std::string>{"Er sagte: \"Hallo.\"", "Dann ging er."});
  CHECK(split("Dr. Müller kommt am 3. Mai. Gut.") == std::vector<std::string>{"Dr. Müller kommt am 3. Mai.", "Gut."});
  CHECK(split("Das ist z.B. gut. Ja.") == std::vector<std::string>{"Das ist z.B. gut.", "Ja."});
  CHECK(split("Mr. J. Smith arrived. Ärger folgte.") == std::vector<std::string>{"Mr. J. Smith arrived.", "Ärger folgte."});
  CHECK(split("Version 2.5 is out. no split here") == std::vector<std::string>{"Version 2.5 is out. no split here"});
  CHECK(split("Wait... What?! Yes.") == std::vector<std::string>{"Wait...", "What?!", "Yes."});
  CHECK(split("Zeile eins\nZeile zwei") == std::vector<std::string>{"Zeile eins", "Zeile zwei"});
  CHECK(split("Und dann… Nichts.") == std::vector<std::string>{"Und dann…", "Nichts."});
  CHECK(split("").empty());
  CHECK(split(" \n ").empty());
}

TEST_CASE("SentencePiece's serialized SentencePieceText: pieces with their bytes; malformed ones are clear errors", "[text]") {
  // text "ab"; piece "▁a" id 5 bytes [0, 1) with its surface; piece "b" id 7 bytes [1, 2); score 0.5 (skipped)
  const std::string piece_a = std::string("\x0A\x04\xE2\x96\x81" "a\x10\x05\x1A\x01" "a\x20\x00\x28\x01", 15);
  const std::string piece_b = std::string("\x0A\x01" "b\x10\x07\x20\x01\x28\x02", 9);
  const std::string msg = std::string("\x0A\x02" "ab", 4) + "\x12" + char(piece_a.size()) + piece_a + "\x12" +
                          char(piece_b.size()) + piece_b + std::string("\x1D\x00\x00\x00\x3F", 5);
  const SentencePieceText t = parse_sentencepiece_text(msg);
  CHECK(t.text == "ab");
  REQUIRE(t.pieces.size() == 2);
  CHECK(t.pieces[0].piece == "\xE2\x96\x81" "a");
  CHECK(t.pieces[0].id == 5);
  CHECK((t.pieces[0].begin == 0 && t.pieces[0].end == 1));
  CHECK(t.pieces[1].piece == "b");
  CHECK(t.pieces[1].id == 7);
  CHECK((t.pieces[1].begin == 1 && t.pieces[1].end == 2));
  CHECK(parse_sentencepiece_text("").pieces.empty());

  CHECK_THROWS_AS(parse_sentencepiece_text(msg.substr(0, msg.size() - 7)), Error);  // truncated
  CHECK_THROWS_AS(parse_sentencepiece_text("\x0A\x05" "ab"), Error);               // a field past the end
  CHECK_THROWS_AS(parse_sentencepiece_text("\x08\xFF"), Error);                    // a varint past the end
  CHECK_THROWS_AS(parse_sentencepiece_text(std::string(11, '\xFF')), Error);        // a varint too long
  CHECK_THROWS_AS(parse_sentencepiece_text("\x0B"), Error);                         // a group (wire type 3)
  CHECK_THROWS_AS(parse_sentencepiece_text(std::string("\x12\x04\x20\x02\x28\x01", 6)), Error);  // ends before it begins
}
