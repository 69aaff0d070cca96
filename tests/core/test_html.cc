// HTML translation (TranslateOptions::html, core/src/html/html.h). One table,
// tests/fixtures/html/cases.json, drives this test and the Node one (tests/wasm/html.test.mjs):
// - "projection": a fragment, a hand-written translation of each of its sentences with a word
//   alignment (target word -> source word), and the HTML expected, checked by hand;
// - "end_to_end": fragments translated by real models; what must hold whatever the model says:
//   the output is well-formed, has every start tag of the input (attributes and all) as often as
//   the input and makes up none, each inside the same parent element (for well-formed input), and
//   what is not translated (script, style, translate="no", code, pre) is there byte for byte.
#include <catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "fixtures.h"
#include "html/html.h"
#include "tformer/html.h"
#include "tformer/translator.h"

using namespace tformer;

namespace {

const nlohmann::json& cases() {
  static const nlohmann::json j = [] {
    const std::vector<uint8_t> bytes = testing::read_file(std::string(TFORMER_FIXTURES_DIR) + "/html/cases.json");
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  }();
  return j;
}

// A scan of HTML that does not share the engine's parser: whether its elements nest properly,
// and its start tags as written. Raw-text elements (script, style) are skipped to their end tag.
struct TagScan {
  bool well_formed = true;
  std::string problem;
  std::multiset<std::string> start_tags;
  std::multiset<std::string> nesting;  // "parent start tag > start tag"
};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TagScan scan(const std::string& html) {
  static const std::set<std::string> kVoid = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                                              "meta", "param", "source", "track", "wbr"};
  TagScan r;
  std::vector<std::string> open, open_tags;
  auto fail = [&](const std::string& why) {
    if (r.well_formed) r.problem = why;
    r.well_formed = false;
  };
  for (size_t i = 0; i < html.size();) {
    if (html[i] != '<') {
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      const size_t e = html.find("-->", i);
      i = e == std::string::npos ? html.size() : e + 3;
      continue;
    }
    const bool end = i + 1 < html.size() && html[i + 1] == '/';
    const size_t name_at = i + (end ? 2 : 1);
    if (name_at >= html.size() || !std::isalpha(static_cast<unsigned char>(html[name_at]))) {
      if (i + 1 < html.size() && (html[i + 1] == '!' || html[i + 1] == '?')) {
        i = html.find('>', i);
        i = i == std::string::npos ? html.size() : i + 1;
      } else {
        fail("a bare '<' at byte " + std::to_string(i));
        ++i;
      }
      continue;
    }
    size_t j = name_at;
    while (j < html.size() && !std::isspace(static_cast<unsigned char>(html[j])) && html[j] != '>' && html[j] != '/') ++j;
    const std::string name = lower(html.substr(name_at, j - name_at));
    char quote = 0;
    for (; j < html.size() && (quote || html[j] != '>'); ++j)
      if (quote ? html[j] == quote : (html[j] == '"' || html[j] == '\'')) quote = quote ? 0 : html[j];
    if (j >= html.size()) {
      fail("a tag without '>'");
      break;
    }
    const std::string tag = html.substr(i, j + 1 - i);
    i = j + 1;
    if (end) {
      if (open.empty() || open.back() != name) {
        fail("</" + name + "> closes " + (open.empty() ? "nothing" : open.back()));
      } else {
        open.pop_back();
        open_tags.pop_back();
      }
      continue;
    }
    r.start_tags.insert(tag);
    r.nesting.insert((open_tags.empty() ? "" : open_tags.back()) + " > " + tag);
    if (kVoid.count(name) || tag.compare(tag.size() - 2, 2, "/>") == 0) continue;
    if (name == "script" || name == "style") {
      const size_t e = lower(html).find("</" + name, i);
      if (e == std::string::npos) {
        fail("unclosed " + name);
        break;
      }
      i = e;
    }
    open.push_back(name);
    open_tags.push_back(tag);
  }
  if (!open.empty()) fail("<" + open.back() + "> not closed");
  return r;
}

std::vector<std::vector<HtmlSentenceTranslation>> blocks_of(const nlohmann::json& table) {
  std::vector<std::vector<HtmlSentenceTranslation>> blocks;
  for (const auto& block : table) {
    blocks.emplace_back();
    for (const auto& s : block) {
      HtmlSentenceTranslation h;
      h.source = s["source"];
      h.target = s["target"];
      if (s.contains("align")) h.alignment = s["align"].get<std::vector<int>>();
      blocks.back().push_back(std::move(h));
    }
  }
  return blocks;
}

// The parts of an input that must come out byte for byte: skipped elements' whole markup.
std::vector<std::string> kept_verbatim(const std::string& html) {
  std::vector<std::string> kept;
  for (const char* open : {"<script", "<style", "<pre", "<code", "translate=\"no\""}) {
    for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
      const size_t start = html.rfind('<', at);
      const size_t name_end = html.find_first_of(" >", start);
      const std::string name = html.substr(start + 1, name_end - start - 1);
      const size_t close = html.find("</" + name + ">", at);
      if (close != std::string::npos) kept.push_back(html.substr(start, close + name.size() + 3 - start));
    }
  }
  return kept;
}

void check_invariants(const std::string& in, const std::string& out) {
  INFO(in << "\n  -> " << out);
  const TagScan o = scan(out);
  CHECK(o.well_formed);
  INFO(o.problem);
  const TagScan i = scan(in);
  // Each start tag as often as in the input, and (for a well-formed input) inside the same parent.
  CHECK(o.start_tags == i.start_tags);
  if (i.well_formed) CHECK(o.nesting == i.nesting);
  for (const std::string& kept : kept_verbatim(in)) CHECK(out.find(kept) != std::string::npos);
  if (i.start_tags.empty() && in.find_first_not_of(" ") != std::string::npos) CHECK(out.find_first_not_of(" ") != std::string::npos);
}

}  // namespace

TEST_CASE("html: the projection table (hand-written translations and alignments)", "[html]") {
  for (const auto& c : cases()["projection"]) {
    const std::string html = c["html"], expected = c["expected"];
    INFO(c["name"].get<std::string>() << ": " << html);
    const std::string out = project_html(html, blocks_of(c["blocks"]));
    CHECK(out == expected);
    check_invariants(html, out);
  }
}

TEST_CASE("html: a block rendered with no sentences is its source", "[html]") {
  for (const auto& c : cases()["projection"]) {
    const std::string html = c["html"];
    const HtmlFragment f = parse_html(html);
    std::vector<std::string> blocks;
    for (const HtmlBlock& b : f.blocks) blocks.push_back(render_block(b, {}));
    // The source again, but for what is repaired (end tags supplied, stray ones dropped, a bare
    // '<' or '>' escaped) and entities written as characters.
    check_invariants(html, render_fragment(f, blocks));
  }
  CHECK(render_fragment(parse_html("<p>Hallo <b>Welt</b>!</p>"), {render_block(parse_html("<p>Hallo <b>Welt</b>!</p>").blocks[0], {})}) ==
        "<p>Hallo <b>Welt</b>!</p>");
}

TEST_CASE("html: code is translated on request", "[html]") {
  HtmlOptions o;
  o.skip_code = false;
  const HtmlFragment f = parse_html("<p>Rufe <code>ls</code> auf.</p><pre>Hallo</pre>", o);
  REQUIRE(f.blocks.size() == 2);
  CHECK(f.blocks[0].text == "Rufe ls auf.");
  CHECK(f.blocks[1].text == "Hallo");
  CHECK(parse_html("<p>Rufe <code>ls</code> auf.</p><pre>Hallo</pre>").blocks.size() == 1);
}

TEST_CASE("html: bad input gets a clear error or a repair, never a crash", "[html]") {
  // Nesting deeper than the limit: an error naming it, no stack overflow.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<span>";
  deep += "x";
  REQUIRE_THROWS_WITH(parse_html(deep), Catch::Contains("nest deeper than 256"));
  std::string fine;
  for (int i = 0; i < 200; ++i) fine += "<b>";
  CHECK(parse_html(fine + "x").blocks.size() == 1);
  // A huge attribute is markup like any other, kept as it is.
  const std::string huge = "<p title=\"" + std::string(1 << 20, 'x') + "\">Hallo</p>";
  const HtmlFragment f = parse_html(huge);
  REQUIRE(f.blocks.size() == 1);
  CHECK(render_fragment(f, {"Hello"}) == "<p title=\"" + std::string(1 << 20, 'x') + "\">Hello</p>");
  // Tags cut off at the end are text; an unterminated comment is kept as it is.
  CHECK(parse_html("Hallo <b class=\"x").blocks.at(0).text == "Hallo <b class=\"x");
  CHECK(parse_html("Hallo <!-- x").blocks.at(0).atoms.size() == 1);
  CHECK(parse_html("<script>x = 1").markup.at(0) == "<script>x = 1</script>");
  // Translations that do not fit the fragment.
  CHECK_THROWS_WITH(project_html("<p>a</p><p>b</p>", {{{"a", "x", {}}}}), Catch::Contains("1 blocks given, the fragment has 2"));
  CHECK_THROWS_WITH(project_html("<p>Hallo Welt</p>", {{{"Welt", "x", {}}, {"Hallo", "y", {}}}}),
                    Catch::Contains("block 0, sentence 1: its source is not the next text of the block"));
  CHECK_THROWS_WITH(project_html("<p>Hallo Welt</p>", {{{"Hallo Welt", "Hello world", {0}}}}),
                    Catch::Contains("1 alignment entries for 2 target words"));
  CHECK_THROWS_WITH(project_html("<p>Hallo Welt</p>", {{{"Hallo Welt", "Hello world", {0, 2}}}}),
                    Catch::Contains("target word 1 is aligned to source word 2 of 2"));
  CHECK(html_block_texts("<p>a &amp; b</p><pre>c</pre><p>d</p>") == std::vector<std::string>{"a & b", "d"});
  CHECK(html_block_texts("<p>a</p><pre>c</pre>", true) == std::vector<std::string>{"a", "c"});
  // Sentences outside the text are the caller's error.
  const HtmlBlock b = parse_html("Hallo").blocks.at(0);
  HtmlSentence s;
  s.begin = 2, s.end = 99;
  CHECK_THROWS_WITH(render_block(b, {s}), Catch::Contains("sentences must lie inside the text"));
  CHECK_THROWS_WITH(render_fragment(parse_html("<p>a</p><p>b</p>"), {"x"}), Catch::Contains("1 blocks given, 2 expected"));
}

namespace {

void end_to_end(Translator& t, const std::string& what) {
  TranslateOptions html;
  html.html = true;
  std::vector<std::string> inputs;
  for (const auto& e : cases()["end_to_end"]) inputs.push_back(e);
  const std::vector<Translation> out = t.translate(inputs, html);
  REQUIRE(out.size() == inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO(what);
    check_invariants(inputs[i], out[i].text);
    // The alignment it needs internally is returned only when asked for.
    for (const SentenceTranslation& s : out[i].sentences) CHECK(s.alignment.empty());
  }
  html.return_alignment = true;
  CHECK_FALSE(t.translate({inputs[0]}, html).at(0).sentences.at(0).alignment.empty());
  // Malformed UTF-8 and over-long input: errors naming the input text.
  CHECK_THROWS_WITH(t.translate({"<p>ok</p>", "<p>\xC3\x28</p>"}, html), Catch::Contains("input text 2"));
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "<i>";
  CHECK_THROWS_WITH(t.translate({deep}, html), Catch::Contains("input text 1 cannot be read as HTML: HTML elements nest deeper than 256"));
  html.max_input_chars = 10;
  CHECK_THROWS_WITH(t.translate({"<p>Hallo Welt, wie geht es?</p>"}, html), Catch::Contains("input text 1"));
}

}  // namespace

TEST_CASE("html: end to end with a fixture model (random weights: the invariants hold whatever it says)", "[html]") {
  Translator t(testing::fixture_path("marian", "model.tfm"));
  end_to_end(t, "fixture marian");
}

TEST_CASE("html: end to end with the shipped de->en model", "[html]") {
  const std::string model = std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm";
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  end_to_end(t, "tiny.deen");
  TranslateOptions html;
  html.html = true;
  // The word the model gives for "drei" carries the emphasis (when it translates it as "three",
  // as the shipped model does: a retrained model may say it otherwise).
  const std::string out = t.translate({"<p>Ich habe <em>drei</em> Katzen.</p>"}, html).at(0).text;
  INFO(out);
  if (t.translate({"Ich habe drei Katzen."}, {}).at(0).text.find("three") != std::string::npos)
    CHECK(out.find("<em>three</em>") != std::string::npos);
  // The text of a fragment without markup is the plain translation.
  const std::string plain = "Zwei Kinder spielen im Park. Ein Junge springt ins Wasser.";
  CHECK(t.translate({plain}, html).at(0).text == t.translate({plain}, {}).at(0).text);
}

TEST_CASE("html with passthrough: a span the model never saw keeps its element", "[html]") {
  const std::string model = std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm";
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  TranslateOptions o;
  o.html = true;
  o.passthrough = true;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<p>Schreib an <a href=\"mailto:anna@example.org\">anna@example.org</a> bitte.</p>",
       "<a href=\"mailto:anna@example.org\">anna@example.org</a>"},
      {"<p>Ruf <b>0171 2345678</b> heute an.</p>", "<b>0171 2345678</b>"},
      {"<p>Das Wetter ist <b>☀️</b> heute.</p>", "<b>☀️</b>"},
  };
  for (const auto& [html, kept] : cases) {
    const std::string out = t.translate({html}, o).at(0).text;
    INFO(html << " -> " << out);
    CHECK(out.find(kept) != std::string::npos);
    check_invariants(html, out);
  }
  // A number stays for the model (text/passthrough.h): its element goes on the words the model
  // wrote for it ("12.50 euros"). The same number twice: the element goes with the copy it was
  // on, not with the first word that reads the same.
  const std::vector<std::pair<std::string, std::string>> numbers = {
      {"<p>Der Preis beträgt <b>12,50 €</b> heute.</p>", "<b>[^<]*12[.,]50[^<]*</b>"},
      {"<p>Er kam 1979 nach Berlin und ging <b>1979.</b></p>", "^<p>[^<]*1979[^<]*<b>[^<]*1979[^<]*</b>"},
  };
  for (const auto& [html, pattern] : numbers) {
    const std::string out = t.translate({html}, o).at(0).text;
    INFO(html << " -> " << out);
    CHECK(std::regex_search(out, std::regex(pattern)));
    check_invariants(html, out);
  }
}

TEST_CASE("html: a block of 4000 inline elements keeps each of them once", "[html]") {
  // A block of 4000 words, each in its own <b>, translated as one sentence of every other word (so
  // that half the elements get no word and are placed by the alignment), aligned to its source
  // word. Its cost against the block's size is measured by tests/bench/html_projection.mjs (a
  // benchmark, not a timed test; ctest's time limit catches a cost gone quadratic: 4000 elements
  // took over 250 s that way).
  const size_t n = 4000;
  std::string html = "<p>";
  HtmlSentenceTranslation s;
  for (size_t i = 0; i < n; ++i) {
    const std::string w = "w" + std::to_string(i % 97);
    html += "<b>" + w + "</b> ";
    s.source += (i ? " " : "") + w;
    if (i % 2 == 0) {
      s.target += (i ? " " : "") + w;
      s.alignment.push_back(int(i));
    }
  }
  html += "</p>";
  const std::string out = project_html(html, {{s}});
  const auto count = [&](const std::string& what) {
    size_t k = 0;
    for (size_t at = out.find(what); at != std::string::npos; at = out.find(what, at + 1)) ++k;
    return k;
  };
  CHECK(out.find("<b>w0</b>") != std::string::npos);
  CHECK(count("<b>") == n);
  CHECK(count("</b>") == n);
  check_invariants(html, out);
}
