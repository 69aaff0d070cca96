// Word confidence (TranslateOptions::confidence): the tokens' log-probabilities against the
// PyTorch reference's (its greedy and beam scores, and the log-softmax of its logits), words cut
// at SentencePiece's word boundaries and placed on the translation's bytes, and the translation
// itself unchanged.
#include <catch.hpp>

#include <cmath>
#include <fstream>

#include "fixtures.h"
#include "tformer/translator.h"
#include "translation/confidence.h"

using namespace tformer;

namespace {

const std::string kWordStart = "\xE2\x96\x81";  // "▁"

// log_softmax(row)[token], in double: the reference's own arithmetic on its own logits.
double log_softmax_at(const float* row, size_t vocab, int token) {
  double max = -INFINITY;
  for (size_t v = 0; v < vocab; ++v) max = std::max(max, double(row[v]));
  double sum = 0;
  for (size_t v = 0; v < vocab; ++v) sum += std::exp(double(row[v]) - max);
  return double(row[size_t(token)]) - max - std::log(sum);
}

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// What must hold of any sentence's confidence: one log-probability per token, a score that is
// their mean, words in order within the text, none empty or edged with spaces, each with its own
// tokens (in order, none shared) and a confidence in (0, 1] that is their probability (the
// product of theirs).
void check_invariants(const SentenceTranslation& s) {
  const SentenceConfidence& c = s.confidence;
  const std::string& text = s.hypotheses.at(0).text;
  REQUIRE(c.log_probs.size() == s.hypotheses.at(0).tokens.size());
  double sum = 0;
  for (float lp : c.log_probs) {
    CHECK(lp <= 0.f);
    sum += lp;
  }
  CHECK(c.score == Approx(sum / double(c.log_probs.size())).margin(1e-6));
  size_t after = 0, next_token = 0;
  for (const WordConfidence& w : c.words) {
    CAPTURE(text, w.begin, w.end);
    REQUIRE(w.begin >= after);
    REQUIRE(w.end > w.begin);
    REQUIRE(w.end <= text.size());
    CHECK(!is_space(text[w.begin]));
    CHECK(!is_space(text[w.end - 1]));
    CHECK(w.first_token >= next_token);
    CHECK(w.tokens >= 1);
    REQUIRE(w.first_token + w.tokens < c.log_probs.size());  // EOS, the last, is no word's
    CHECK((s.target_pieces[w.first_token].rfind(kWordStart, 0) == 0 || w.first_token == 0));
    double p = 1;
    for (size_t t = w.first_token; t < w.first_token + w.tokens; ++t) p *= std::exp(double(c.log_probs[t]));
    CHECK(w.confidence == Approx(p).margin(1e-6));
    CHECK(w.confidence > 0.f);
    CHECK(w.confidence <= 1.f);
    after = w.end;
    next_token = w.first_token + w.tokens;
  }
}

std::string shipped_model() { return std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm"; }

}  // namespace

TEST_CASE("confidence: words at SentencePiece's word boundaries, on the translation's bytes", "[confidence]") {
  // "Hello, world!" as "▁Hello" "," "▁world" "!" </s>.
  TranslationBytes bytes;
  bytes.model.text = "Hello, world!";
  bytes.model.tokens = {{0, 5}, {5, 6}, {6, 12}, {12, 13}};
  const std::vector<std::string> pieces = {kWordStart + "Hello", ",", kWordStart + "world", "!", "</s>"};
  const std::vector<float> lp = {-0.1f, -0.2f, -1.5f, -0.05f, -0.01f};
  const SentenceConfidence c = sentence_confidence(pieces, lp, bytes, bytes.model.text);
  CHECK(c.score == Approx((-0.1 - 0.2 - 1.5 - 0.05 - 0.01) / 5));
  REQUIRE(c.words.size() == 2);
  CHECK(c.words[0].begin == 0);
  CHECK(c.words[0].end == 6);  // "Hello,"
  CHECK(c.words[0].first_token == 0);
  CHECK(c.words[0].tokens == 2);
  CHECK(c.words[0].confidence == Approx(std::exp(-0.1) * std::exp(-0.2)));
  CHECK(c.words[1].begin == 7);  // "world!", without the space before it
  CHECK(c.words[1].end == 13);
  CHECK(c.words[1].confidence == Approx(std::exp(-1.5) * std::exp(-0.05)));

  SECTION("a span passthrough put back before a word belongs to no word") {
    // "Preis: Euro" became "Preis: 42 Euro": " 42" went in before " Euro" (position 6).
    TranslationBytes put;
    put.model.text = "Preis: Euro";
    put.model.tokens = {{0, 5}, {5, 6}, {6, 11}};
    put.put_back = {{6, 3, {7, 9}, 0}};
    const SentenceConfidence p = sentence_confidence({kWordStart + "Preis", ":", kWordStart + "Euro", "</s>"},
                                                     {-0.1f, -0.1f, -0.3f, -0.1f}, put, "Preis: 42 Euro");
    REQUIRE(p.words.size() == 2);
    CHECK(p.words[0].begin == 0);
    CHECK(p.words[0].end == 6);
    CHECK(p.words[1].begin == 10);  // "Euro"
    CHECK(p.words[1].end == 14);
  }
  SECTION("a sentence copied as it was has a score but no words") {
    TranslationBytes verbatim = bytes;
    verbatim.verbatim = true;
    const SentenceConfidence v = sentence_confidence(pieces, lp, verbatim, "Hallo, Welt!");
    CHECK(v.words.empty());
    CHECK(v.score == Approx(c.score));
  }
  SECTION("a trailing \"▁\" token stands for no text: no word") {
    TranslationBytes t;
    t.model.text = "Hi";
    t.model.tokens = {{0, 2}, {2, 2}};
    const SentenceConfidence w = sentence_confidence({kWordStart + "Hi", kWordStart, "</s>"}, {-0.1f, -0.2f, -0.3f}, t, "Hi");
    REQUIRE(w.words.size() == 1);
    CHECK(w.words[0].tokens == 1);
  }
  SECTION("mismatched pieces and log-probabilities are an error, not a crash") {
    CHECK_THROWS_AS(sentence_confidence({"</s>"}, lp, bytes, bytes.model.text), Error);
  }
}

TEST_CASE("confidence: the tokens' log-probabilities are the PyTorch reference's", "[confidence]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const double tolerance = testing::tolerance(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  const testing::Golden golden(variant);
  std::vector<std::string> texts;
  for (const auto& s : golden.json["sentences"]) texts.push_back(s["text"]);
  const size_t vocab = size_t(translator.info().vocab_size);

  TranslateOptions plain = testing::plain_options();
  TranslateOptions with = plain;
  with.confidence = true;
  const auto without = translator.translate(texts, plain);
  const auto greedy = translator.translate(texts, with);
  TranslateOptions beam = with;
  beam.beam_size = golden.json["beam_size"];
  const auto beamed = translator.translate(texts, beam);
  for (size_t i = 0; i < texts.size(); ++i) {
    CAPTURE(texts[i]);
    const auto& g = golden.json["sentences"][i]["greedy"];
    REQUIRE(greedy[i].sentences.size() == 1);
    const SentenceTranslation& s = greedy[i].sentences[0];
    // The translation is the same with and without confidence.
    CHECK(greedy[i].text == without[i].text);
    CHECK(s.hypotheses[0].tokens == without[i].sentences[0].hypotheses[0].tokens);
    CHECK(without[i].sentences[0].confidence.log_probs.empty());
    CHECK(without[i].sentences[0].confidence.words.empty());
    check_invariants(s);
    // The score is the reference's summed log-probability over its length (EOS included).
    const std::vector<int> tokens = g["tokens"].get<std::vector<int>>();
    REQUIRE(s.hypotheses[0].tokens == tokens);
    CHECK(std::abs(s.confidence.score - g["raw_score"].get<double>() / double(tokens.size())) < tolerance);
    // Each of the first steps: the log-softmax of the reference's logits at the chosen token.
    const std::vector<float> logits = golden.array(g["logits"]);
    const size_t steps = logits.size() / vocab;
    for (size_t t = 0; t < steps && t < tokens.size(); ++t) {
      CAPTURE(t);
      CHECK(std::abs(s.confidence.log_probs[t] - log_softmax_at(&logits[t * vocab], vocab, tokens[size_t(t)])) < tolerance);
    }
    // With beam search, the chosen hypothesis's: its log-probabilities sum to the reference's
    // raw score of its best hypothesis.
    const auto& b = golden.json["sentences"][i]["beam"][0];
    const SentenceTranslation& bs = beamed[i].sentences.at(0);
    REQUIRE(bs.hypotheses[0].tokens == b["tokens"].get<std::vector<int>>());
    check_invariants(bs);
    double sum = 0;
    for (float lp : bs.confidence.log_probs) sum += lp;
    CHECK(std::abs(sum - b["raw_score"].get<double>()) < tolerance);
  }
}

TEST_CASE("confidence: words of a real translation cover its text (shipped de->en model)", "[confidence]") {
  if (!std::ifstream(shipped_model())) {
    WARN("no " << shipped_model() << ": skipped");
    return;
  }
  Translator t(shipped_model());
  TranslateOptions o;
  o.confidence = true;
  const std::vector<std::string> texts = {
      "Ein Mann fährt Fahrrad. Die Kinder spielen im Garten, und ihre Mutter liest ein Buch.",
      "Der Zug nach München fährt um 14:30 Uhr von Gleis 3 ab.",
      "Überraschenderweise schmeckte der Käsekuchen „ausgezeichnet“ – sagte Jürgen.",
      "",
      "   ",
  };
  const auto out = t.translate(texts, o);
  TranslateOptions plain = o;
  plain.passthrough = false;
  const auto model_only = t.translate(texts, plain);
  REQUIRE(out.size() == texts.size());
  for (size_t i = 0; i < 3; ++i) {
    REQUIRE(!out[i].sentences.empty());
    for (const SentenceTranslation& s : out[i].sentences) {
      check_invariants(s);
      CHECK(!s.confidence.words.empty());
    }
    // Without passthrough (whose spans put back between words belong to none), every byte of a
    // sentence's translation but spaces is in a word.
    for (const SentenceTranslation& s : model_only[i].sentences) {
      check_invariants(s);
      const std::string& text = s.hypotheses[0].text;
      std::vector<bool> covered(text.size(), false);
      for (const WordConfidence& w : s.confidence.words)
        for (size_t b = w.begin; b < w.end; ++b) covered[b] = true;
      for (size_t b = 0; b < text.size(); ++b) {
        CAPTURE(text, b);
        CHECK((covered[b] || is_space(text[b])));
      }
    }
  }
  // An empty or blank text has no sentences, so no confidence to give.
  CHECK(out[3].sentences.empty());
  CHECK(out[4].sentences.empty());
  CHECK(t.translate({}, o).empty());
}

TEST_CASE("confidence with html: the words are in the sentences' plain text, the HTML is unchanged", "[confidence]") {
  if (!std::ifstream(shipped_model())) {
    WARN("no " << shipped_model() << ": skipped");
    return;
  }
  Translator t(shipped_model());
  TranslateOptions html;
  html.html = true;
  TranslateOptions with = html;
  with.confidence = true;
  const std::vector<std::string> texts = {"<p>Ich habe <em>drei</em> Katzen &amp; zwei Hunde.</p><p>Sie <b>schlafen</b>.</p>"};
  const auto plain = t.translate(texts, html);
  const auto out = t.translate(texts, with);
  CHECK(out[0].text == plain[0].text);
  REQUIRE(out[0].sentences.size() == 2);
  for (const SentenceTranslation& s : out[0].sentences) {
    check_invariants(s);
    CHECK(!s.confidence.words.empty());
    CHECK(s.hypotheses[0].text.find('<') == std::string::npos);
    CHECK(s.hypotheses[0].text.find("&amp;") == std::string::npos);
  }
}
