// Translated HTML holds no markup that was not markup in its input, as an HTML5 parser that shares
// nothing with the engine reads both (gumbo, tests/core/html5_reader.h; native only). The inputs:
// tests/fixtures/html/hostile.json (markup a naive scan misreads: quoted '>' in end tags, the
// other ends of comments, raw text, SVG, noscript...) and the HTML table (cases.json). Each is
// rendered with translations that move every word (each sentence's words reversed, aligned to
// where they came from) and translated end to end by the fixture model and the shipped de->en
// model. Where the input's markup needs no repair, the parser must see exactly its elements.
#include <catch.hpp>

#include <cctype>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fixtures.h"
#include "html/html.h"
#include "html5_reader.h"
#include "text/sentence_splitter.h"
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

TEST_CASE("html markup: the reader ignores an empty end tag, as HTML5 does", "[html-markup]") {
  // "</>" is no tag (the tokenizer's missing-end-tag-name error), so the "</svg>" after it closes
  // the svg and the a after that is an HTML a, as html5lib and browsers read it.
  const std::map<std::string, int> e = testing::html5_elements("<svg><g></></svg><a href=\"x\">y</a>");
  CHECK(e.count("html:a href=x") == 1);
  CHECK(e.count("svg:a href=x") == 0);
  // Within a tag it is an attribute "<" and the self-closing solidus.
  CHECK(testing::html5_elements("<svg><g </><a>") == testing::html5_elements("<svg><g <=\"\"/><a>"));
  // A value that ended in "</" before a space ends in it before the '>' where the engine drops a
  // repeated attribute, as browsers do: the same element (found by fuzz_html).
  CHECK(testing::html5_elements("<p title=a</ title=b>x") == testing::html5_elements("<p title=a</>x"));
  CHECK(testing::html5_elements("<p title=a</>x").count("html:p title=a</") == 1);
  // The engine writes out the end tags that "</svg>" implies: no markup made.
  for (const std::string in : {"<svg><style><!e></></svg><pich>", "<svg><g></></svg><a href=\"x\">y</a>", "<math></></math><mi>"}) {
    check(in, written_back(in));
    for (size_t words : {1, 2}) check(in, reversed(in, words));
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

namespace {

// Whitespace (and U+00A0) runs as one space, none at the ends.
std::string collapsed(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool nbsp = s.compare(i, 2, "\xC2\xA0") == 0;
    if (nbsp || std::isspace(static_cast<unsigned char>(s[i]))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      i += nbsp;
    } else {
      out += s[i];
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The text a reader sees in a fragment, by gumbo.
void visible(const GumboNode* n, std::string& out) {
  if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE) out += n->v.text.text;
  if (n->type != GUMBO_NODE_ELEMENT) return;
  for (unsigned i = 0; i < n->v.element.children.length; ++i) visible(static_cast<const GumboNode*>(n->v.element.children.data[i]), out);
}

std::string visible_text(const std::string& html) {
  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_DIV;
  GumboOutput* parsed = gumbo_parse_with_options(&options, html.data(), html.size());
  std::string text;
  visible(parsed->root, text);
  gumbo_destroy_output(&options, parsed);
  return collapsed(text);
}

}  // namespace

TEST_CASE("html markup: no sentence is lost around inline elements (FLORES devtest, shipped de->en model)", "[html-markup]") {
  const std::string model = std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm";
  const std::string data = std::string(TFORMER_FIXTURES_DIR) + "/../../../shared/data/deen/test/flores-devtest.de";
  std::ifstream lines_in(data);
  if (!std::ifstream(model) || !lines_in) {
    WARN("no " << model << " or " << data << ": skipped");
    return;
  }
  // Each line in a <p>, with one to three runs of one to four words wrapped in <code> (kept
  // untranslated: the model never sees it), <b> or <a> at places drawn from a fixed seed.
  std::mt19937 random(20251127);
  std::vector<std::string> html;
  std::vector<std::vector<std::string>> expected;  // each line's sentences without the code's text
  for (std::string line; std::getline(lines_in, line);) {
    std::vector<std::string> words;
    for (size_t at = 0; at < line.size();) {
      const size_t end = std::min(line.find(' ', at), line.size());
      if (end > at) words.push_back(line.substr(at, end - at));
      at = end + 1;
    }
    if (words.empty()) continue;
    std::vector<int> kind(words.size(), -1);  // -1: plain; 0: code, 1: b, 2: a (per run start: +3)
    for (unsigned runs = 1 + random() % 3, r = 0; r < runs; ++r) {
      const size_t first = random() % words.size(), n = 1 + random() % 4, k = random() % 3;
      bool free = true;
      for (size_t w = first; w < first + n && w < words.size(); ++w) free = free && kind[w] < 0;
      if (!free) continue;
      for (size_t w = first; w < first + n && w < words.size(); ++w) kind[w] = int(k) + (w == first ? 3 : 0);
    }
    static const char* kOpen[] = {"<code>", "<b>", "<a href=\"#x\">"};
    static const char* kClose[] = {"</code>", "</b>", "</a>"};
    std::string h = "<p>", plain;
    std::vector<bool> code_byte;
    std::vector<size_t> code_starts;
    for (size_t w = 0; w < words.size(); ++w) {
      const int k = kind[w] % 3;
      if (w > 0) {
        h += ' ';
        plain += ' ';
        code_byte.push_back(false);
      }
      if (kind[w] >= 3) {
        h += kOpen[k];
        if (k == 0) code_starts.push_back(plain.size());
      }
      for (char c : words[w]) h += c == '&' ? std::string("&amp;") : c == '<' ? std::string("&lt;") : std::string(1, c);
      plain += words[w];
      code_byte.insert(code_byte.end(), words[w].size(), kind[w] >= 0 && k == 0);
      if (kind[w] >= 0 && (w + 1 == words.size() || kind[w + 1] < 3 && kind[w + 1] % 3 != k || kind[w + 1] < 0 || kind[w + 1] >= 3))
        h += kClose[k];
    }
    html.push_back(h + "</p>");
    expected.emplace_back();
    for (const SentenceSpan& s : split_sentences(plain, code_starts)) {
      std::string text;
      for (size_t i = s.begin; i < s.end; ++i) text += code_byte[i] ? ' ' : plain[i];
      text = collapsed(text);
      if (!text.empty()) expected.back().push_back(text);
    }
  }
  REQUIRE(html.size() > 1000);
  Translator t(model);
  TranslateOptions o;
  o.html = true;
  // Code after a sentence's end starts the next sentence, as the text a reader sees has it.
  const Translation cats = t.translate({"<p>Ich habe drei Katzen. <code>ls -l</code> zeigt die Dateien.</p>"}, o).at(0);
  INFO(cats.text);
  REQUIRE(cats.sentences.size() == 2);
  CHECK(cats.sentences[0].source == "Ich habe drei Katzen.");
  CHECK(cats.sentences[1].source == "zeigt die Dateien.");
  CHECK(cats.text.find(". <code>ls -l</code> ") != std::string::npos);
  const std::vector<Translation> out = t.translate(html, o);
  REQUIRE(out.size() == html.size());
  size_t sentences = 0;
  for (size_t i = 0; i < html.size(); ++i) {
    INFO(html[i] << "\n  -> " << out[i].text);
    // Every source sentence has a counterpart: a sentence of its own, translated...
    std::vector<std::string> sources;
    for (const SentenceTranslation& s : out[i].sentences) sources.push_back(collapsed(s.source));
    CHECK(sources == expected[i]);
    sentences += sources.size();
    // ... whose words are all in the output, in order.
    const std::string text = visible_text(out[i].text);
    size_t at = 0;
    for (const SentenceTranslation& s : out[i].sentences)
      for (const auto& [b, e] : html_words(collapsed(s.hypotheses.at(0).text))) {
        const std::string word = collapsed(s.hypotheses.at(0).text).substr(b, e - b);
        const size_t found = text.find(word, at);
        CHECK(found != std::string::npos);
        if (found != std::string::npos) at = found + word.size();
      }
    CHECK(testing::html5_new_markup(html[i], out[i].text) == "");
  }
  WARN(html.size() << " lines, " << sentences << " sentences");
}
