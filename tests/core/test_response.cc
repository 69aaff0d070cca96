// The response builder on its own (core/src/translation/response.*): hypotheses -> a
// SentenceTranslation (texts detokenized as the PyTorch reference does, the golden fixtures'
// hypothesis texts; pieces; the best hypothesis's alignment on request; passthrough's spans put
// back), and sentences -> the translations of their input texts.
#include <catch.hpp>

#include <string>
#include <vector>

#include "loaded_fixture.h"
#include "text/passthrough.h"
#include "translation/response.h"

using namespace tformer;

namespace {

struct Loaded : testing::LoadedFixture {
  using LoadedFixture::LoadedFixture;
  ResponseBuilder builder() const { return ResponseBuilder(model.config, *model.source_tokenizer, *model.target_tokenizer); }
};

const auto nothing_unknown = [](char32_t) { return false; };

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("response: hypotheses are detokenized as the PyTorch reference does, best first", "[response]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  Loaded l(variant);
  const ResponseBuilder builder = l.builder();
  for (const auto& golden : l.golden.json["sentences"]) {
    Segment segment;
    segment.text = golden["text"];
    segment.source = golden["source_ids"].get<std::vector<int>>();
    segment.alignment = true;
    std::vector<SearchHypothesis> hyps;
    for (const auto& b : golden["beam"]) {
      SearchHypothesis h;
      h.tokens = b["tokens"].get<std::vector<int>>();
      h.score = b["score"].get<double>();
      h.alignment.assign(h.tokens.size() * segment.source.size(), 1.f / float(segment.source.size()));
      hyps.push_back(h);
    }
    const std::vector<float> best_alignment = hyps[0].alignment;
    const SentenceTranslation s = builder.sentence(segment, hyps);
    CHECK(s.source == segment.text);
    CHECK(s.source_tokens == segment.source);
    CHECK(s.source_pieces.size() == segment.source.size());
    REQUIRE(s.hypotheses.size() == golden["beam"].size());
    for (size_t i = 0; i < s.hypotheses.size(); ++i) {
      CHECK(s.hypotheses[i].text == golden["beam"][i]["text"].get<std::string>());
      CHECK(s.hypotheses[i].tokens == golden["beam"][i]["tokens"].get<std::vector<int>>());
      CHECK(s.hypotheses[i].score == float(golden["beam"][i]["score"].get<double>()));
    }
    REQUIRE(s.target_pieces.size() == s.hypotheses[0].tokens.size());  // EOS has its piece too
    for (size_t i = 0; i < s.target_pieces.size(); ++i)
      CHECK(s.target_pieces[i] == l.model.target_tokenizer->piece(s.hypotheses[0].tokens[i]));
    CHECK(s.alignment == best_alignment);

    segment.alignment = false;  // not asked for: none returned
    CHECK(builder.sentence(segment, hyps).alignment.empty());
  }
}

TEST_CASE("response: passthrough's spans go back into the translation", "[response]") {
  Loaded l("marian");
  const ResponseBuilder builder = l.builder();
  const Tokenizer& target = *l.model.target_tokenizer;
  const int eos = l.model.config.eos_id;

  // A sentence of numbers and symbols only is copied, whatever the model said.
  Segment verbatim;
  verbatim.text = "12,50 €";
  verbatim.kept = protect(verbatim.text, nothing_unknown);
  REQUIRE(verbatim.kept.verbatim);
  verbatim.source = {eos};
  std::vector<SearchHypothesis> hyps(2);
  hyps[0].tokens = target.encode("Hallo");
  hyps[0].tokens.push_back(eos);
  hyps[1].tokens = {eos};
  const SentenceTranslation copied = builder.sentence(verbatim, hyps);
  CHECK(copied.hypotheses[0].text == "12,50 €");
  CHECK(copied.hypotheses[1].text == "12,50 €");
  CHECK(copied.hypotheses[0].tokens == hyps[0].tokens);  // the tokens stay the model's

  // A span is put back once into each hypothesis, the model's words around it.
  Segment s;
  s.text = "Ich habe 😀 Katzen.";
  s.kept = protect(s.text, nothing_unknown);
  REQUIRE(s.kept.spans.size() == 1);
  const Tokenizer::Encoded encoded = l.model.source_tokenizer->encode_annotated(s.kept.text);
  s.source = encoded.ids;
  s.source_tokens = encoded.tokens;
  s.source.push_back(eos);
  std::vector<SearchHypothesis> one(1);
  one[0].tokens = target.encode("I have cats.");
  one[0].tokens.push_back(eos);
  const std::string text = builder.sentence(s, one).hypotheses[0].text;
  CAPTURE(text);
  CHECK(count(text, "😀") == 1);
  CHECK(text.find("I have") != std::string::npos);
  CHECK(text.find("cats.") != std::string::npos);
  // Placed as restore() places it from the tokens without EOS (no alignment: the relative place).
  CHECK(text == restore(s.kept, s.source_tokens, target.decode_annotated(target.encode("I have cats.")), {},
                        s.source.size(), 0));

  // A number the model left out is put back into its words (repair_numbers), once.
  Segment n;
  n.text = "Ich habe 3 Katzen.";
  n.kept = protect(n.text, nothing_unknown);
  REQUIRE(n.kept.numbers.size() == 1);
  const Tokenizer::Encoded n_encoded = l.model.source_tokenizer->encode_annotated(n.kept.text);
  n.source = n_encoded.ids;
  n.source_tokens = n_encoded.tokens;
  n.source.push_back(eos);
  std::vector<SearchHypothesis> lost(1);
  lost[0].tokens = one[0].tokens;
  const SentenceTranslation repaired = builder.sentence(n, lost);
  CAPTURE(repaired.hypotheses[0].text);
  CHECK(count(repaired.hypotheses[0].text, "3") == 1);
  CHECK(repaired.hypotheses[0].text ==
        repair_numbers(n.kept, n.source_tokens, target.decode_annotated(target.encode("I have cats.")), {}, n.source.size(), 0).text);
  // Its tokens' ranges still cover the text in order.
  size_t at = 0;
  for (const ByteRange& r : repaired.target_ranges) {
    CHECK(r.begin >= at);
    CHECK(r.end <= repaired.hypotheses[0].text.size());
    at = r.end;
  }
}

TEST_CASE("response: sentences are joined by spaces, lines by line breaks, per input text", "[response]") {
  auto segment = [](size_t paragraph, size_t line) {
    Segment s;
    s.paragraph = paragraph;
    s.line = line;
    return s;
  };
  auto sentence = [](const std::string& text) {
    SentenceTranslation s;
    s.source = "source of " + text;
    s.hypotheses.push_back({text, {}, 0.f});
    return s;
  };
  // Text 0: "A B" on line 0, "C" on line 2; text 1: nothing; text 2: "D".
  const std::vector<Segment> segments = {segment(0, 0), segment(0, 0), segment(0, 2), segment(2, 0)};
  std::vector<SentenceTranslation> sentences = {sentence("A"), sentence("B"), sentence("C"), sentence("D")};
  std::vector<Translation> paragraphs(3);
  assemble(segments, sentences, paragraphs);
  CHECK(paragraphs[0].text == "A B\n\nC");
  REQUIRE(paragraphs[0].sentences.size() == 3);
  CHECK(paragraphs[0].sentences[2].source == "source of C");
  CHECK(paragraphs[1].text.empty());
  CHECK(paragraphs[1].sentences.empty());
  CHECK(paragraphs[2].text == "D");
  CHECK(paragraphs[2].best(0).text == "D");
}
