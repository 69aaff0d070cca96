// Translated HTML holds no markup that was not markup in its input, as an HTML5 parser that shares
// nothing with the engine reads both (gumbo, tests/core/html5_reader.h; native only). The inputs:
// tests/fixtures/html/hostile.json (markup a naive scan misreads: quoted '>' in end tags, the
// other ends of comments, raw text, SVG, noscript...) and the HTML table (cases.json). Each is
// rendered with translations that move every word (each sentence's words reversed, aligned to
// where they came from) and translated end to end by the fixture model and the shipped de->en
// model. Where the input's markup needs no repair, the parser must see exactly its elements.
#include <catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "fixtures.h"
#include "html/html.h"
#include "html5_reader.h"
#include "tformer/translator.h"

using namespace tformer;

namespace {

nlohmann::json fixture(const std::string& name) {
  const std::vector<uint8_t> bytes = testing::read_file(std::string(TFORMER_FIXTURES_DIR) + "/html/" + name);
  return nlohmann::json::parse(bytes.begin(), bytes.end());
}

std::vector<std::string> hostile() {
  const nlohmann::json cases = fixture("hostile.json");
  std::vector<std::string> out;
  for (const auto& c : cases["cases"]) out.push_back(c["html"]);
  return out;
}

std::vector<std::string> table() {
  const nlohmann::json cases = fixture("cases.json");
  std::vector<std::string> out;
  for (const auto& c : cases["projection"]) out.push_back(c["html"]);
  for (const auto& e : cases["end_to_end"]) out.push_back(e);
  return out;
}

// Each block's text as sentences of up to `words` words, each translated as its words in reverse
// order, each target word aligned to the source word it is.
std::string reversed(const std::string& html, size_t words, bool skip_code = true) {
  HtmlOptions options;
  options.skip_code = skip_code;
  const HtmlFragment f = parse_html(html, options);
  std::vector<std::string> rendered;
  for (const HtmlBlock& b : f.blocks) {
    const auto w = html_words(b.text);
    std::vector<HtmlSentence> sentences;
    for (size_t i = 0; i < w.size(); i += words) {
      HtmlSentence s;
      const size_t n = std::min(words, w.size() - i);
      s.begin = w[i].first;
      s.end = w[i + n - 1].second;
      for (size_t k = n; k-- > 0;) {
        s.target += b.text.substr(w[i + k].first, w[i + k].second - w[i + k].first) + (k ? " " : "");
        s.source_word.push_back(int(k));
      }
      sentences.push_back(std::move(s));
    }
    rendered.push_back(render_block(b, sentences));
  }
  return render_fragment(f, rendered);
}

// The fragment written back with nothing translated: what the engine makes of its markup.
std::string written_back(const std::string& html) {
  const HtmlFragment f = parse_html(html);
  std::vector<std::string> blocks;
  for (const HtmlBlock& b : f.blocks) blocks.push_back(render_block(b, {}));
  return render_fragment(f, blocks);
}

void check(const std::string& in, const std::string& out) {
  INFO(in << "\n  -> " << out);
  CHECK(testing::html5_new_markup(in, out) == "");
  // Markup that needs no repair keeps every element, as often as it had it.
  if (testing::html5_elements(in) == testing::html5_elements(written_back(in))) CHECK(testing::html5_new_markup(in, out, true) == "");
}

void translated(Translator& t, const std::vector<std::string>& inputs) {
  TranslateOptions o;
  o.html = true;
  const std::vector<Translation> out = t.translate(inputs, o);
  REQUIRE(out.size() == inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) check(inputs[i], out[i].text);
}

}  // namespace

TEST_CASE("html markup: the reader sees in the output what it sees in the input (words moved)", "[html-markup]") {
  for (const std::vector<std::string>& inputs : {hostile(), table()})
    for (const std::string& in : inputs)
      for (size_t words : {1, 2, 3, 100}) {
        check(in, reversed(in, words));
        check(in, reversed(in, words, false));
      }
}

TEST_CASE("html markup: the hostile fragments keep the markup they had", "[html-markup]") {
  // What the markup is read as (a browser reads these the same way).
  HtmlOptions o;
  const auto text_of = [&](const std::string& html) {
    std::string text;
    for (const HtmlBlock& b : parse_html(html, o).blocks) text += b.text + "|";
    return text;
  };
  // An end tag ends at its '>', not at one inside a quoted attribute: what follows is text.
  CHECK(text_of("<p><b>Hallo</b x=\">\"> Welt</p>") == "Hallo Welt|");
  CHECK(written_back("<p><b>Hallo</b x=\">\"> Welt</p>") == "<p><b>Hallo</b> Welt</p>");
  // Comments end at "-->", "--!>", "<!-->" and "<!--->".
  for (const char* c : {"<!-- a -->", "<!-- a --!>", "<!-->", "<!--->"})
    CHECK(text_of(std::string("<p>Ein ") + c + " Haus</p>") == "Ein  Haus|");
  CHECK(written_back("<p>Ein <!-- a --!> Haus</p>") == "<p>Ein <!-- a --> Haus</p>");
  CHECK(written_back("<p>Ein <!--> Haus</p>") == "<p>Ein <!----> Haus</p>");
  // Script data: "</script>" inside "<!--<script>" does not end it.
  CHECK(text_of("<script><!--<script></script>x</script>Haus") == "Haus|");
  // A start tag is written back from its attributes: their values as written, in their quotes.
  CHECK(written_back("<p  class=intro\ttitle='a \"b\"' data-x=\"&amp;\" hidden>Hallo</p>") ==
        "<p  class=intro\ttitle='a \"b\"' data-x=\"&amp;\" hidden>Hallo</p>");
  CHECK(written_back("<p a/=b c c>Hallo</p>") == "<p a=\"\" =b c>Hallo</p>");
  CHECK(written_back("<p><b/>Hallo</b> <br/><img src=a />x</p>") == "<p><b>Hallo</b> <br/><img src=a />x</p>");
  // Where browsers read the same bytes two ways, the rest is kept as it is.
  const std::string noscript = "<p>Hallo</p><noscript><p title=\"</noscript><img src=x>\"></noscript><p>Welt</p>";
  CHECK(text_of(noscript) == "Hallo|");
  CHECK(written_back(noscript) == noscript);
  CHECK(text_of("<noscript><img src=a></noscript><p>Welt</p>") == "Welt|");  // reads alike both ways
}

TEST_CASE("html markup: end to end with a fixture model", "[html-markup]") {
  Translator t(testing::fixture_path("marian", "model.tfm"));
  translated(t, hostile());
  translated(t, table());
}

TEST_CASE("html markup: end to end with the shipped de->en model", "[html-markup]") {
  const std::string model = std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm";
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  translated(t, hostile());
  translated(t, table());
}
