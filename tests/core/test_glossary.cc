// Glossary and do-not-translate terms (text/glossary.h, TranslateOptions::glossary): the checks of
// the entries, the matching rules, the putting in of terms by the alignment, and the whole
// engine on a shipped model.
#include <catch.hpp>

#include <fstream>

#include "fixtures.h"
#include "spelled_sentence.h"
#include "text/glossary.h"
#include "text/glossary_file.h"
#include "tformer/error.h"
#include "tformer/translator.h"

using tformer::testing::spelled;
using namespace tformer;

namespace {

GlossaryEntry term(std::string source, std::optional<std::string> target = std::nullopt, bool case_sensitive = true) {
  return GlossaryEntry{std::move(source), std::move(target), case_sensitive};
}

// The matched texts, in order.
std::vector<std::string> found(const std::vector<GlossaryEntry>& entries, const std::string& text) {
  validate_glossary(entries);
  std::vector<std::string> out;
  for (const GlossaryMatch& m : Glossary(entries).find(text)) out.push_back(text.substr(m.source.begin, m.source.size()));
  return out;
}

std::string refusal(const std::vector<GlossaryEntry>& entries) {
  try {
    validate_glossary(entries);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidOptions);
    return e.what();
  }
  return "";
}

// An alignment [target tokens + EOS x source tokens] where target token t looks at source token
// points[t] (weight 0.9, the rest spread).
std::vector<float> alignment(const std::vector<size_t>& points, size_t sources) {
  std::vector<float> a((points.size() + 1) * sources, 0.1f / float(sources));
  for (size_t t = 0; t < points.size(); ++t) a[t * sources + points[t]] = 0.9f;
  return a;
}

// The engine's tokens of a put_terms() result must follow each other and cover its text.
void check_ranges(const AnnotatedSentence& s) {
  size_t at = 0;
  for (const ByteRange& r : s.tokens) {
    CHECK(r.begin >= at);
    CHECK(r.begin <= r.end);
    at = r.end;
  }
  CHECK(at <= s.text.size());
}

}  // namespace

TEST_CASE("glossary: bad entries are refused with the entry and what is wrong", "[glossary]") {
  CHECK(refusal({}).empty());
  CHECK(refusal({term("Berlin"), term("Haus", "building", false)}).empty());
  CHECK(refusal({term("C++", "C#")}).empty());  // a target without a letter is fine
  CHECK(refusal({term("Berlin"), term("")}) == "invalid translate options: glossary[1]: source is empty");
  CHECK(refusal({term(" Berlin")}) == "invalid translate options: glossary[0]: source begins or ends with whitespace");
  CHECK(refusal({term("Berlin", " Berlin")}) == "invalid translate options: glossary[0]: target begins or ends with whitespace");
  CHECK(refusal({term("Ber\tlin")}) == "invalid translate options: glossary[0]: source has a control character (U+0009) at byte 3");
  CHECK(refusal({term("Berlin", "Ber\x1b[31mlin")}) ==
        "invalid translate options: glossary[0]: target has a control character (U+001B) at byte 3");
  CHECK(refusal({term("Ber\xC3lin")}) == "invalid translate options: glossary[0]: source is not valid UTF-8: byte 0xC3 at offset 3");
  CHECK(refusal({term("...")}) == "invalid translate options: glossary[0]: source has no letter or digit");
  CHECK(refusal({term("Haus", "")}) ==
        "invalid translate options: glossary[0]: target is empty (leave it out to keep the source as it is)");
  CHECK(refusal({term(std::string(kMaxGlossaryTermBytes + 1, 'a'))}) ==
        "invalid translate options: glossary[0]: source is longer than 1000 bytes (got 1001)");
  std::vector<GlossaryEntry> giant(kMaxGlossaryEntries + 1, term("x"));
  CHECK(refusal(giant) == "invalid translate options: the glossary has 10001 entries, at most 10000 are allowed");
  // A source given twice: the same text, or the same letters where either entry ignores case.
  CHECK(refusal({term("Haus", "house"), term("Haus", "home")}) ==
        "invalid translate options: glossary[1]: source \"Haus\" is given already by glossary[0]");
  CHECK(refusal({term("Haus", "house"), term("HAUS", "home", false)}) ==
        "invalid translate options: glossary[1]: source \"HAUS\" is given already by glossary[0]");
  CHECK(refusal({term("Apple"), term("apple", "Apfel")}).empty());  // both case-sensitive: different terms
  // The engine checks them with its other options, before anything is translated.
  TranslateOptions o;
  o.glossary = {term("")};
  CHECK_THROWS_WITH(validate(o), "invalid translate options: glossary[0]: source is empty");
}

TEST_CASE("glossary: whole words, case as each entry says, longest match first", "[glossary]") {
  // Whole words: not inside another word; punctuation around a term is no part of a word.
  CHECK(found({term("Berlin")}, "Berliner fahren nach Berlin, (Berlin) und Berlin-Mitte.") ==
        std::vector<std::string>{"Berlin", "Berlin", "Berlin"});
  CHECK(found({term("Haus")}, "Das Hausdach und das Gasthaus.").empty());
  CHECK(found({term("my_var")}, "set my_var and my_var_2").size() == 1);
  // Case: as written for a case-sensitive entry, any case for one that is not.
  CHECK(found({term("Apple")}, "Apple und apple und APPLE") == std::vector<std::string>{"Apple"});
  CHECK(found({term("apple", std::nullopt, false)}, "Apple und apple und APPLE") ==
        std::vector<std::string>{"Apple", "apple", "APPLE"});
  // Longest first, where matches overlap: "New York City" over "New York"; "York University"
  // (15 bytes) over "New York" (8), though "New York" begins first.
  const std::vector<GlossaryEntry> cities{term("New York"), term("New York City"), term("York University")};
  CHECK(found(cities, "New York City is big, New York is too.") == std::vector<std::string>{"New York City", "New York"});
  CHECK(found(cities, "the New York University") == std::vector<std::string>{"York University"});
  // Matches side by side that do not overlap are all taken.
  CHECK(found({term("Tom"), term("Jerry")}, "Tom Jerry") == std::vector<std::string>{"Tom", "Jerry"});
  // Unicode: letters beyond ASCII are letters (no match inside "Müllerstraße"), case folds across
  // Latin, Greek and Cyrillic, and "ß" is no "SS".
  CHECK(found({term("straße", std::nullopt, false)}, "Die Müllerstraße, die STRASSE, die Straße.") ==
        std::vector<std::string>{"Straße"});
  CHECK(found({term("ärzte", std::nullopt, false)}, "ÄRZTE ohne Grenzen") == std::vector<std::string>{"ÄRZTE"});
  CHECK(found({term("москва", std::nullopt, false)}, "Я люблю МОСКВА и Москвабад") == std::vector<std::string>{"МОСКВА"});
  CHECK(found({term("αθήνα", std::nullopt, false)}, "ΑΘΉΝΑ.") == std::vector<std::string>{"ΑΘΉΝΑ"});
  CHECK(found({term("Zürich")}, "Zürich😀 und Zürichsee") == std::vector<std::string>{"Zürich"});
  // A term that begins or ends with punctuation needs no word boundary there.
  CHECK(found({term("C++")}, "Ich mag C++, nicht C.") == std::vector<std::string>{"C++"});
  // Nested entries over a long text: each start has hundreds of matches; the longest win.
  std::vector<GlossaryEntry> nested;
  std::string words = "a";
  for (int n = 1; n <= 500; ++n, words += " a") nested.push_back(term(words));
  std::string long_text = "a";
  for (int n = 1; n < 2000; ++n) long_text += " a";
  const std::vector<std::string> chunks = found(nested, long_text);
  REQUIRE(chunks.size() == 4);
  for (const std::string& c : chunks) CHECK(c.size() == 999);
  CHECK(count_term("Apple and apple", "apple", false) == 2);
  CHECK(count_term("Apple and apple", "apple", true) == 1);
  CHECK(count_term("pineapple", "apple", true) == 0);
}

TEST_CASE("glossary: put_terms() replaces the words that translate a term, by the alignment", "[glossary]") {
  const std::string source = "Das Haus ist groß.";
  const std::vector<ByteRange> source_tokens = spelled({"▁Das", "▁Haus", "▁ist", "▁groß", "."}).tokens;
  const AnnotatedSentence target = spelled({"▁The", "▁ho", "use", "▁is", "▁big", "."});
  const std::vector<float> a = alignment({0, 1, 1, 2, 3, 4}, 5);
  std::vector<GlossaryEntry> entries{term("Haus", "building")};
  Glossary g(entries);
  const std::vector<GlossaryMatch> matches = g.find(source);
  REQUIRE(matches.size() == 1);

  AnnotatedSentence out = put_terms(g, source, matches, source_tokens, target, a, 5, 0);
  CHECK(out.text == "The building is big.");
  check_ranges(out);
  REQUIRE(out.tokens.size() == target.tokens.size());
  CHECK(out.text.substr(out.tokens[1].begin, out.tokens[1].size()) == " building");  // the word's first token stands for it
  CHECK(out.tokens[2].size() == 0);                                                  // its other tokens for nothing
  CHECK(out.text.substr(out.tokens[3].begin, out.tokens[3].size()) == " is");
  // With a BOS column first, the same.
  std::vector<float> with_bos(7 * 6, 0.f);
  const size_t bos_points[] = {1, 2, 2, 3, 4, 5};
  for (size_t t = 0; t < 6; ++t) with_bos[t * 6 + bos_points[t]] = 0.9f;
  CHECK(put_terms(g, source, matches, source_tokens, target, with_bos, 6, 1).text == "The building is big.");

  // Already there: nothing is replaced (the model said "house" itself).
  Glossary house({term("Haus", "house")});
  CHECK(put_terms(house, source, house.find(source), source_tokens, target, a, 5, 0).text == "The house is big.");
  // Already there elsewhere than the alignment says: still nothing.
  CHECK(put_terms(house, source, house.find(source), source_tokens, target, alignment({0, 3, 3, 1, 3, 4}, 5), 5, 0).text ==
        "The house is big.");
  // Case-insensitive entries find their target in any case.
  Glossary house_ci({term("Haus", "HOUSE", false)});
  CHECK(put_terms(house_ci, source, house_ci.find(source), source_tokens, target, a, 5, 0).text == "The house is big.");
  Glossary house_cs({term("Haus", "HOUSE")});
  CHECK(put_terms(house_cs, source, house_cs.find(source), source_tokens, target, a, 5, 0).text == "The HOUSE is big.");

  // Do not translate: the term as the sentence writes it.
  Glossary keep({term("haus", std::nullopt, false)});
  CHECK(put_terms(keep, source, keep.find(source), source_tokens, target, a, 5, 0).text == "The Haus is big.");

  // A term the model left out (no target word looks at it): after the word of the source word
  // before it.
  const AnnotatedSentence dropped = spelled({"▁The", "▁is", "▁big", "."});
  CHECK(put_terms(g, source, matches, source_tokens, dropped, alignment({0, 2, 3, 4}, 5), 5, 0).text == "The building is big.");
  // ... and without an alignment, at the same relative place.
  const AnnotatedSentence inserted = put_terms(g, source, matches, source_tokens, dropped, {}, 5, 0);
  CHECK(inserted.text == "The building is big.");
  check_ranges(inserted);
  // A term that opens the sentence, left out: before the word of the source word after it.
  const std::string opening = "Haus ist groß.";
  CHECK(put_terms(g, opening, g.find(opening), spelled({"▁Haus", "▁ist", "▁groß", "."}).tokens, spelled({"▁Is", "▁big", "."}),
                  alignment({1, 2, 3}, 4), 4, 0)
            .text == "building Is big.");

  // A word that is another term's wanted form (the model said it) is not replaced: a term the
  // alignment links to it goes in beside it, after the word of the source word before it.
  const std::string fools = "The Fools Who Dream";
  Glossary names({term("Who"), term("Dream")});
  CHECK(put_terms(names, fools, names.find(fools), spelled({"▁The", "▁Fools", "▁Who", "▁Dream"}).tokens,
                  spelled({"▁Die", "▁Narren", "▁Dream"}), alignment({0, 1, 2}, 4), 4, 0)
            .text == "Die Narren Who Dream");

  // Two terms in one sentence, and one of them twice.
  const std::string two = "Haus und Haus und Garten.";
  const std::vector<ByteRange> two_tokens = spelled({"▁Haus", "▁und", "▁Haus", "▁und", "▁Garten", "."}).tokens;
  Glossary both({term("Haus", "house"), term("Garten", "yard")});
  const AnnotatedSentence model = spelled({"▁House", "▁and", "▁house", "▁and", "▁garden", "."});
  const AnnotatedSentence both_out = put_terms(both, two, both.find(two), two_tokens, model, alignment({0, 1, 2, 3, 4, 5}, 6), 6, 0);
  CHECK(both_out.text == "house and house and yard.");
  check_ranges(both_out);
}

TEST_CASE("glossary of a pivot's second step: the first step's wanted forms, kept", "[glossary]") {
  const std::vector<GlossaryEntry> second =
      pivot_glossary({term("Haus", "maison"), term("tformer"), term("Heim", "maison"), term("C++", "++", false), term("Auto", "voiture", false)});
  REQUIRE(second.size() == 3);  // "maison" once; "++" has no letter to match
  CHECK(second[0].source == "maison");
  CHECK_FALSE(second[0].target);
  CHECK(second[1].source == "tformer");
  CHECK(second[2].source == "voiture");
  CHECK_FALSE(second[2].case_sensitive);
  CHECK_NOTHROW(validate_glossary(second));
}

namespace {

std::string file_refusal(const std::string& content) {
  try {
    parse_glossary_file(content, "'g.tsv'");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("glossary file: TSV of source, target and flags; bad lines named by number", "[glossary]") {
  const std::vector<GlossaryEntry> g = parse_glossary_file(
      "\xEF\xBB\xBF# brand names are kept\n"
      "tformer\n"
      "  \n"
      "Haus\tbuilding\r\n"
      "  # a comment after spaces\n"
      "berlin\tBerlin City\ti\n"
      "Kubernetes\t\tc\n"
      "Apfel \t apple \n",
      "'g.tsv'");
  REQUIRE(g.size() == 5);
  CHECK(g[0].source == "tformer");
  CHECK_FALSE(g[0].target);
  CHECK(g[0].case_sensitive);
  CHECK(g[1].source == "Haus");
  CHECK(g[1].target == std::optional<std::string>("building"));
  CHECK(g[2].target == std::optional<std::string>("Berlin City"));
  CHECK_FALSE(g[2].case_sensitive);
  CHECK_FALSE(g[3].target);  // an empty target: kept
  CHECK(g[3].case_sensitive);
  CHECK(g[4].source == "Apfel");  // spaces around fields dropped
  CHECK(g[4].target == std::optional<std::string>("apple"));
  CHECK(parse_glossary_file("", "'g.tsv'").empty());
  CHECK(parse_glossary_file("# nothing\n\n", "'g.tsv'").empty());

  CHECK(file_refusal("Haus\tbuilding\n\tempty source\n") == "glossary 'g.tsv' line 2: source is empty");
  CHECK(file_refusal("a\tb\ti\tx\n") == "glossary 'g.tsv' line 1: has 4 fields; a line is a source, a target and flags, separated by tabs");
  // Spaces where a tab would be: refused, where a single space is a term of two words, kept.
  CHECK(file_refusal("Haus\tbuilding\nKatze    cat\n") ==
        "glossary 'g.tsv' line 2: has no tab but a run of spaces (\"Katze    cat\"): a line is a source, a target and flags, "
        "separated by tabs (a term kept as it is has no target, and single spaces between its words)");
  CHECK(parse_glossary_file("Acme Widgets\n", "'g.tsv'").at(0).source == "Acme Widgets");
  CHECK(file_refusal("Haus\tbuilding\tz\n") == "glossary 'g.tsv' line 1: unknown flag 'z' (i: any case, c: case as written)");
  CHECK(file_refusal("ok\nHa\xFFus\n") == "glossary 'g.tsv' line 2: is not valid UTF-8: byte 0xFF at column 3");
  CHECK(file_refusal("Haus\tbu\x07ilding\n") == "glossary 'g.tsv' line 1: target has a control character (U+0007) at byte 2");
  CHECK(file_refusal("Haus\thouse\n# x\nhaus\thome\ti\n") ==
        "glossary 'g.tsv' line 3: source \"haus\" is given already by line 1");
  CHECK(file_refusal(std::string(kMaxGlossaryFileBytes + 1, 'a')) ==
        "glossary 'g.tsv' is longer than the 16777216 bytes a glossary may have");
  std::string many;
  for (size_t i = 0; i <= kMaxGlossaryEntries; ++i) many += "w" + std::to_string(i) + "\n";
  CHECK(file_refusal(many) == "glossary 'g.tsv' line 10001: more than 10000 entries");
  CHECK_THROWS_WITH(read_glossary_file("/nonexistent/g.tsv"), "cannot open glossary '/nonexistent/g.tsv': No such file or directory");
}

namespace {

std::string shipped_model(const char* pair) {
  return std::string(TFORMER_FIXTURES_DIR) + "/../../models/" + pair + "/model.tfm";
}

}  // namespace

TEST_CASE("glossary on a shipped model: terms come out the user's way, and only where asked", "[glossary]") {
  const std::string model = shipped_model("tiny.deen");
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  const TranslateOptions plain;  // the defaults: no glossary
  const std::string text = "Das Haus ist sehr alt. Wir wohnen in Berlin.";
  const std::string model_says = t.translate({text}, plain).at(0).text;
  INFO("model: " << model_says);
  REQUIRE(count_term(model_says, "house", false) == 1);

  TranslateOptions o = plain;
  o.glossary = {term("Haus", "building"), term("berlin", "Bärlin", false)};
  const Translation r = t.translate({text}, o).at(0);
  INFO("glossary: " << r.text);
  CHECK(count_term(r.text, "building", true) == 1);
  CHECK(count_term(r.text, "house", false) == 0);
  CHECK(count_term(r.text, "Bärlin", true) == 1);
  CHECK(r.sentences.at(0).alignment.empty());  // the alignment it needs is returned only when asked for

  // Where the model says the target already, its translation is unchanged.
  o.glossary = {term("Haus", "house", false)};
  CHECK(t.translate({text}, o).at(0).text == model_says);
  // A term that is not in the text changes nothing.
  o.glossary = {term("Katze", "kitty")};
  CHECK(t.translate({text}, o).at(0).text == model_says);

  // Do not translate, with passthrough's spans in the same sentence.
  o.glossary = {term("Haus")};
  const std::string kept = t.translate({"Das Haus kostet 12 € 😀."}, o).at(0).text;
  INFO("kept: " << kept);
  CHECK(count_term(kept, "Haus", true) == 1);
  CHECK(kept.find("12") != std::string::npos);
  CHECK(kept.find("😀") != std::string::npos);

  // n-best: each hypothesis gets the term.
  o.glossary = {term("Haus", "building")};
  o.beam_size = o.nbest = 3;
  const std::vector<Translation> nbest = t.translate({"Das Haus ist sehr alt."}, o);
  REQUIRE(nbest.at(0).sentences.at(0).hypotheses.size() == 3);
  for (const Hypothesis& h : nbest.at(0).sentences.at(0).hypotheses) CHECK(count_term(h.text, "building", true) == 1);
}

TEST_CASE("glossary with HTML: targets are text, never markup", "[glossary]") {
  const std::string model = shipped_model("tiny.deen");
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  TranslateOptions o;
  o.html = true;
  o.glossary = {term("Haus", "<img src=x onerror=alert(1)>&amp;")};
  const std::string out = t.translate({"<p>Das <b>Haus</b> ist sehr alt.</p>"}, o).at(0).text;
  INFO(out);
  CHECK(out.find("<img") == std::string::npos);
  // The markup that was there stays (placed on the target's words by the alignment).
  REQUIRE(out.find("<b>") != std::string::npos);
  REQUIRE(out.find("</b>") != std::string::npos);
  std::string text = out;
  for (const std::string tag : {"<b>", "</b>"}) text.erase(text.find(tag), tag.size());
  CHECK(text.find("&lt;img src=x onerror=alert(1)&gt;&amp;amp;") != std::string::npos);
  // A source with markup characters matches the text as the page shows it.
  o.glossary = {term("AT&T", "AT&T Inc.")};
  const std::string amp = t.translate({"<p>Das Haus von AT&amp;T ist alt.</p>"}, o).at(0).text;
  INFO(amp);
  CHECK(amp.find("AT&amp;T Inc.") != std::string::npos);
}
