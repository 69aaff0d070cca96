// UTF-8 validation and sentence splitting.
#include <catch.hpp>

#include "text/sentence_splitter.h"
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
