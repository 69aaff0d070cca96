// The engine against the PyTorch reference's golden data (tests/fixtures, models/tformer/fixtures.py):
// token ids, encoder output and logits within 1e-4 (int8 variants: testing::tolerance), greedy and
// beam token sequences identical, scores within the same, on both kernel libraries, one sentence at a time
// and as a padded batch.
#include <catch.hpp>

#include "decoding/search.h"
#include "fixtures.h"
#include "kernels/kernels.h"
#include "model/model_file.h"
#include "text/tokenizer.h"
#include "tformer/translator.h"
#include "transformer/model.h"

using namespace tformer;
using tformer::testing::Golden;
using tformer::testing::max_abs_diff;

namespace {

std::vector<int> with_specials(const ModelConfig& c, std::vector<int> ids) {
  if (c.source_bos) ids.insert(ids.begin(), c.bos_id);
  if (c.source_eos) ids.push_back(c.eos_id);
  return ids;
}

std::vector<int> tokens_of(const nlohmann::json& j) { return j["tokens"].get<std::vector<int>>(); }

std::unique_ptr<Kernels> kernels_named(const std::string& name) {
  return name == "reference" ? make_reference_kernels() : make_xnnpack_kernels(2);
}

}  // namespace

TEST_CASE("encoder, logits, greedy and beam search match the PyTorch reference", "[parity]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  const std::string kernels_name = GENERATE(as<std::string>{}, "xnnpack", "reference");
  CAPTURE(variant, kernels_name);
  const double kTolerance = testing::tolerance(variant);
  const ModelFile file = ModelFile::from_path(testing::fixture_path(variant, "model.tfm"));
  auto kernels = kernels_named(kernels_name);
  const TransformerModel model(*kernels, file);
  const ModelConfig& config = model.config();
  const Tokenizer tokenizer(file.bytes_of(file.tokenizer().source));
  const Golden golden(variant);
  const int logit_steps = 8;

  for (const auto& s : golden.json["sentences"]) {
    const std::string text = s["text"];
    CAPTURE(text);
    const std::vector<int> source = with_specials(config, tokenizer.encode(text));
    REQUIRE(source == s["source_ids"].get<std::vector<int>>());

    const EncoderOutput memory = model.encoder().forward({source});
    CHECK(max_abs_diff(memory.states, golden.array(s["encoder_output"])) < testing::encoder_tolerance(variant));

    const int max_length = s["max_length"];
    SearchOptions greedy;
    greedy.alignment = true;
    const auto g = search(model.decoder(), config, memory, {max_length}, greedy, /*keep_logits=*/true).at(0).at(0);
    const auto& gg = s["greedy"];
    CHECK(g.tokens == tokens_of(gg));
    CHECK(std::abs(g.raw_score - gg["raw_score"].get<double>()) < kTolerance);
    CHECK(std::abs(g.score - gg["score"].get<double>()) < kTolerance);
    std::vector<float> logits, alignment;
    const size_t S = source.size();
    for (size_t t = 0; t < g.step_logits.size() && t < size_t(logit_steps); ++t) {
      logits.insert(logits.end(), g.step_logits[t].begin(), g.step_logits[t].end());
      alignment.insert(alignment.end(), g.alignment.begin() + long(t * S), g.alignment.begin() + long((t + 1) * S));
    }
    CHECK(max_abs_diff(logits, golden.array(gg["logits"])) < kTolerance);
    CHECK(max_abs_diff(alignment, golden.array(gg["alignment"])) < testing::encoder_tolerance(variant));

    SearchOptions beam;
    beam.beam_size = golden.json["beam_size"];
    beam.nbest = golden.json["nbest"];
    const auto hyps = search(model.decoder(), config, memory, {max_length}, beam).at(0);
    REQUIRE(hyps.size() == s["beam"].size());
    for (size_t i = 0; i < hyps.size(); ++i) {
      CAPTURE(i);
      CHECK(hyps[i].tokens == tokens_of(s["beam"][i]));
      CHECK(std::abs(hyps[i].score - s["beam"][i]["score"].get<double>()) < kTolerance);
      CHECK(std::abs(hyps[i].raw_score - s["beam"][i]["raw_score"].get<double>()) < kTolerance);
    }
  }
}

TEST_CASE("a padded batch of all sentences gives the same results as one at a time", "[parity]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const ModelFile file = ModelFile::from_path(testing::fixture_path(variant, "model.tfm"));
  auto kernels = make_xnnpack_kernels(2);
  const TransformerModel model(*kernels, file);
  const Tokenizer tokenizer(file.bytes_of(file.tokenizer().source));
  const Golden golden(variant);

  std::vector<std::vector<int>> sources;
  std::vector<int> max_lengths;
  for (const auto& s : golden.json["sentences"]) {
    sources.push_back(s["source_ids"].get<std::vector<int>>());
    max_lengths.push_back(s["max_length"]);
  }
  const EncoderOutput memory = model.encoder().forward(sources);
  for (size_t b = 0; b < sources.size(); ++b) {
    const auto& s = golden.json["sentences"][b];
    const std::vector<float> expected = golden.array(s["encoder_output"]);
    std::vector<float> got(memory.row(b, 0), memory.row(b, 0) + expected.size());
    CHECK(max_abs_diff(got, expected) < testing::encoder_tolerance(variant));
  }
  const auto greedy = search(model.decoder(), model.config(), memory, max_lengths, SearchOptions{});
  SearchOptions beam;
  beam.beam_size = 4;
  beam.nbest = 4;
  const auto beams = search(model.decoder(), model.config(), memory, max_lengths, beam);
  for (size_t b = 0; b < sources.size(); ++b) {
    const auto& s = golden.json["sentences"][b];
    CHECK(greedy[b][0].tokens == tokens_of(s["greedy"]));
    for (size_t i = 0; i < beams[b].size(); ++i) CHECK(beams[b][i].tokens == tokens_of(s["beam"][i]));
  }
}

TEST_CASE("the Translator reproduces the reference's texts, n-best lists and alignments", "[parity]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const double kTolerance = testing::tolerance(variant);
  Translator translator(testing::fixture_path(variant, "model.tfm"));
  const Golden golden(variant);
  std::vector<std::string> texts;
  for (const auto& s : golden.json["sentences"]) texts.push_back(s["text"]);

  TranslateOptions greedy = testing::plain_options();
  greedy.return_alignment = true;
  const auto g = translator.translate(texts, greedy);
  TranslateOptions beam = testing::plain_options();
  beam.beam_size = 4;
  beam.nbest = 4;
  const auto b = translator.translate(texts, beam);
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto& s = golden.json["sentences"][i];
    REQUIRE(g[i].sentences.size() == 1);
    CHECK(g[i].text == s["greedy"]["text"].get<std::string>());
    CHECK(g[i].sentences[0].hypotheses[0].tokens == tokens_of(s["greedy"]));
    const auto& sent = g[i].sentences[0];
    CHECK(sent.source_pieces.size() == sent.source_tokens.size());
    CHECK(sent.target_pieces.size() == sent.hypotheses[0].tokens.size());
    CHECK(sent.alignment.size() == sent.target_pieces.size() * sent.source_pieces.size());
    for (size_t t = 0; t < sent.target_pieces.size(); ++t) {  // each row is a distribution
      double sum = 0;
      for (size_t k = 0; k < sent.source_pieces.size(); ++k) sum += sent.alignment[t * sent.source_pieces.size() + k];
      CHECK(std::abs(sum - 1.0) < 1e-4);
    }
    REQUIRE(b[i].sentences[0].hypotheses.size() == 4);
    CHECK(b[i].text == s["beam"][0]["text"].get<std::string>());
    for (size_t k = 0; k < 4; ++k) {
      CHECK(b[i].sentences[0].hypotheses[k].text == s["beam"][k]["text"].get<std::string>());
      CHECK(std::abs(b[i].sentences[0].hypotheses[k].score - s["beam"][k]["score"].get<double>()) < kTolerance);
    }
  }
}
