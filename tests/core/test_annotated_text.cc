// A translation's annotated texts (tformer/annotated_text.h): the source and the target of each
// input text, with each sentence's and each token's bytes within the whole text. Checked here by
// what must hold whatever the model writes: the source's sentences are the segmenter's, the
// tokens of a sentence follow each other and cover it, a sentence's substring is its translation.
// The tokens' bytes themselves are checked against Debian's SentencePiece for Python through the
// CLI and the package (tests/models/test_annotated_text.py, tests/web/annotated_text.test.mjs).
#include <catch.hpp>

#include <string>
#include <vector>

#include "fixtures.h"
#include "loaded_fixture.h"
#include "tformer/translator.h"
#include "translation/segmenter.h"

using namespace tformer;

namespace {

// Several lines and sentences, whitespace at either end and doubled, multi-byte characters,
// characters SentencePiece normalises ("…", "ﬁ", U+00A0), an emoji.
const std::vector<std::string> kTexts = {
    "Die Katze schläft. Der Hund bellt!",
    "  Ich habe Hunger …  Wo ist die ﬁnale Runde?\n\nEin neuer Absatz 😀 hier.\n",
    "Größe:\u00a0zwölf.",
    "",
    " \n ",
};

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

// Tokens in order, each within the sentence, without overlap; with `cover`, from the sentence's
// first byte to its last without a gap (what SentencePiece keeps of plain text).
void check_tokens(const AnnotatedText& a, size_t s, bool cover) {
  CAPTURE(s, a.sentence(s));
  const ByteRange sentence = a.sentences[s];
  size_t at = sentence.begin;
  for (const ByteRange& t : a.tokens[s]) {
    CHECK(t.begin <= t.end);
    CHECK(t.begin >= at);
    if (cover) CHECK(t.begin == at);
    CHECK(t.end <= sentence.end);
    at = std::max(at, t.end);
  }
  if (cover) CHECK(at == sentence.end);
}

// The sentences in order without overlap, only whitespace between them and around them.
void check_sentences(const AnnotatedText& a) {
  size_t at = 0;
  for (size_t s = 0; s < a.num_sentences(); ++s) {
    const ByteRange r = a.sentences[s];
    REQUIRE(r.begin >= at);
    REQUIRE(r.end <= a.text.size());
    CHECK(blank(std::string_view(a.text).substr(at, r.begin - at)));
    at = r.end;
  }
  CHECK(blank(std::string_view(a.text).substr(at)));
}

}  // namespace

TEST_CASE("annotated text: appending sentences and texts moves their ranges to where they land", "[annotated]") {
  AnnotatedText a;
  a.append_sentence("  ", "Hallo Welt.", {{0, 5}, {5, 10}, {10, 11}, {11, 11}});
  a.append_sentence("\n", "Gut.", {{0, 3}, {3, 4}});
  CHECK(a.text == "  Hallo Welt.\nGut.");
  REQUIRE(a.num_sentences() == 2);
  CHECK(a.sentence(0) == "Hallo Welt.");
  CHECK(a.token(0, 1) == " Welt");
  CHECK(a.token(0, 3).empty());
  CHECK(a.sentences[1] == ByteRange{14, 18});
  CHECK(a.token(1, 0) == "Gut");
  AnnotatedText b;
  b.append_text("", a);
  b.append_text(" ", a);
  CHECK(b.text == a.text + " " + a.text);
  REQUIRE(b.num_sentences() == 4);
  CHECK(b.sentence(2) == "Hallo Welt.");
  CHECK(b.token(3, 0) == "Gut");
  CHECK(b.tokens[3][1] == ByteRange{a.text.size() + 1 + 17, a.text.size() + 1 + 18});
}

TEST_CASE("annotated text: a translation's source and target, each sentence and token within the whole text", "[annotated]") {
  const std::string variant = GENERATE(as<std::string>{}, "tutorial", "marian");  // BOS+EOS, and EOS only
  CAPTURE(variant);
  testing::LoadedFixture l(variant);
  const ModelConfig& c = l.model.config;
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  TranslateOptions o = testing::plain_options();
  o.return_alignment = true;
  const std::vector<Translation> out = translator.translate(kTexts, o);
  REQUIRE(out.size() == kTexts.size());
  for (size_t p = 0; p < kTexts.size(); ++p) {
    CAPTURE(p, kTexts[p]);
    const Translation& t = out[p];
    CHECK(t.source.text == kTexts[p]);
    CHECK(t.target.text == t.text);
    REQUIRE(t.source.num_sentences() == t.sentences.size());
    REQUIRE(t.target.num_sentences() == t.sentences.size());
    // The source's sentences are where the segmenter found them.
    std::vector<Segment> segments;
    l.model.segmenter->split(p, kTexts[p], o, segments);
    REQUIRE(segments.size() == t.sentences.size());
    check_sentences(t.source);
    check_sentences(t.target);
    for (size_t s = 0; s < t.sentences.size(); ++s) {
      const SentenceTranslation& st = t.sentences[s];
      CHECK(t.source.sentences[s] == ByteRange{segments[s].begin, segments[s].end});
      CHECK(t.source.sentence(s) == st.source);
      CHECK(t.target.sentence(s) == st.hypotheses[0].text);
      // One range per token the model saw and wrote; BOS/EOS empty at the sentence's ends.
      REQUIRE(t.source.tokens[s].size() == st.source_tokens.size());
      REQUIRE(t.target.tokens[s].size() == st.hypotheses[0].tokens.size());
      if (c.source_bos) CHECK(t.source.tokens[s].front() == ByteRange{t.source.sentences[s].begin, t.source.sentences[s].begin});
      if (c.source_eos) CHECK(t.source.tokens[s].back() == ByteRange{t.source.sentences[s].end, t.source.sentences[s].end});
      if (st.hypotheses[0].tokens.back() == c.eos_id)
        CHECK(t.target.tokens[s].back() == ByteRange{t.target.sentences[s].end, t.target.sentences[s].end});
      check_tokens(t.source, s, true);
      check_tokens(t.target, s, true);
      // The sentence's own ranges are the same, of its own source and text.
      REQUIRE(st.source_ranges.size() == st.source_tokens.size());
      for (size_t k = 0; k < st.source_ranges.size(); ++k) {
        CHECK(st.source_ranges[k].begin + t.source.sentences[s].begin == t.source.tokens[s][k].begin);
        CHECK(st.source_ranges[k].end + t.source.sentences[s].begin == t.source.tokens[s][k].end);
      }
      REQUIRE(st.target_ranges.size() == st.hypotheses[0].tokens.size());
      for (size_t k = 0; k < st.target_ranges.size(); ++k)
        CHECK(st.target_ranges[k].begin + t.target.sentences[s].begin == t.target.tokens[s][k].begin);
    }
  }
  // Normalised characters: "…" and "ﬁ" stand where they were, though their pieces spell "..." and "fi".
  const Translation& t = out[1];
  bool ellipsis = false, ligature = false;
  for (size_t s = 0; s < t.source.num_sentences(); ++s)
    for (size_t k = 0; k < t.source.tokens[s].size(); ++k) {
      const std::string_view token = t.source.token(s, k);
      ellipsis = ellipsis || token.find("…") != std::string_view::npos;
      ligature = ligature || token.find("ﬁ") != std::string_view::npos;
    }
  CHECK(ellipsis);
  CHECK(ligature);
}

TEST_CASE("annotated text: a sentence cut into pieces is its pieces' bytes, in order", "[annotated]") {
  const std::string variant = GENERATE(as<std::string>{}, "tutorial", "marian");
  CAPTURE(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  TranslateOptions o = testing::plain_options();
  o.max_sentence_tokens = 3;
  const std::string text = "  Heute ist ein schöner Tag, und wir gehen in den Park.";
  const Translation t = translator.translate({text}, o).at(0);
  REQUIRE(t.sentences.size() > 2);
  check_sentences(t.source);
  size_t at = 2;
  for (size_t s = 0; s < t.sentences.size(); ++s) {
    CAPTURE(s);
    CHECK(t.source.sentence(s) == t.sentences[s].source);
    CHECK(blank(std::string_view(text).substr(at, t.source.sentences[s].begin - at)));  // only the spaces between pieces
    check_tokens(t.source, s, true);
    at = t.source.sentences[s].end;
  }
  CHECK(at == text.size());
}

TEST_CASE("annotated text: passthrough's spans lie outside every token, in the source and in the translation", "[annotated]") {
  const std::string variant = GENERATE(as<std::string>{}, "tutorial", "marian");
  CAPTURE(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  TranslateOptions o;  // passthrough on
  o.return_alignment = true;
  const std::vector<std::string> spans = {"😀", "12,50", "https://example.org/a"};
  const std::string text = "Das Wetter ist 😀 heute. Es kostet 12,50 Euro. Siehe https://example.org/a dort.";
  const Translation t = translator.translate({text}, o).at(0);
  check_sentences(t.source);
  check_sentences(t.target);
  for (const AnnotatedText* a : {&t.source, &t.target}) {
    for (size_t s = 0; s < a->num_sentences(); ++s) {
      check_tokens(*a, s, false);
      // What no token holds is whitespace or a span that passed through.
      std::string outside;
      size_t at = a->sentences[s].begin;
      for (const ByteRange& r : a->tokens[s]) {
        if (r.begin > at) outside += a->text.substr(at, r.begin - at) + " ";
        at = std::max(at, r.end);
      }
      outside += a->text.substr(at, a->sentences[s].end - at);
      std::string rest = outside;
      for (const std::string& span : spans)
        for (size_t f = rest.find(span); f != std::string::npos; f = rest.find(span)) rest.replace(f, span.size(), " ");
      CAPTURE(a->sentence(s), outside);
      CHECK(blank(rest));
    }
  }
  for (const std::string& span : spans) CHECK(t.text.find(span) != std::string::npos);
}

TEST_CASE("annotated text: HTML mode has none (the translation is markup)", "[annotated]") {
  Translator translator(testing::fixture_path("marian", "model.tfm"));
  TranslateOptions o = testing::plain_options();
  o.html = true;
  const Translation t = translator.translate({"<p>Die <b>Katze</b> schläft.</p>"}, o).at(0);
  CHECK(!t.sentences.empty());
  CHECK(t.source.sentences.empty());
  CHECK(t.target.sentences.empty());
  // Each sentence still has its tokens' bytes, of its own source and text.
  for (const SentenceTranslation& s : t.sentences) {
    CHECK(s.source_ranges.size() == s.source_tokens.size());
    CHECK(s.target_ranges.size() == s.hypotheses[0].tokens.size());
  }
}
