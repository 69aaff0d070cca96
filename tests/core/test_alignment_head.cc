// The alignment head (.tfm metadata "alignment_head": {"layer": L, "head": H}, written for models
// trained with guided alignment): the engine's alignment is that one head's cross-attention, as the
// PyTorch reference computes it (golden data: tests/fixtures/marian/alignment_head.json, written by
// models/tformer/fixtures.py for the marian fixture with that metadata, which this test sets on the
// same file); absent or null, the last layer's head average (test_parity.cc); bad values are
// refused at load with a message naming them.
#include <catch.hpp>

#include "decoding/search.h"
#include "fixtures.h"
#include "kernels/kernels.h"
#include "model/model_file.h"
#include "tformer/error.h"
#include "tformer/translator.h"
#include "transformer/model.h"

using namespace tformer;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

std::vector<uint8_t> marian_with_head(const json& head) {
  return testing::with_header(testing::read_file(testing::fixture_path("marian", "model.tfm")),
                              [&](json& h) { h["metadata"]["alignment_head"] = head; });
}

// The greedy alignment rows (one per target step) of one source under `file`.
std::vector<std::vector<float>> greedy_alignment(Kernels& kernels, const ModelFile& file, const std::vector<int>& source,
                                                 int max_length, std::vector<int>* tokens) {
  const TransformerModel model(kernels, file);
  SearchOptions options;
  options.alignment = true;
  const EncoderOutput memory = model.encoder().forward({source});
  const auto hyp = search(model.decoder(), model.config(), memory, {max_length}, options).at(0).at(0);
  if (tokens) *tokens = hyp.tokens;
  std::vector<std::vector<float>> rows;
  const size_t S = source.size();
  for (size_t t = 0; t * S < hyp.alignment.size(); ++t)
    rows.emplace_back(hyp.alignment.begin() + long(t * S), hyp.alignment.begin() + long((t + 1) * S));
  return rows;
}

}  // namespace

TEST_CASE("the alignment is the metadata's alignment head, as the PyTorch reference computes it", "[alignment]") {
  const json golden = json::parse(testing::read_file(testing::fixture_path("marian", "alignment_head.json")));
  const ModelFile file = ModelFile::from_bytes(marian_with_head(golden["alignment_head"]));
  const ModelFile plain = ModelFile::from_path(testing::fixture_path("marian", "model.tfm"));
  const std::string kernels_name = GENERATE(as<std::string>{}, "xnnpack", "reference");
  CAPTURE(kernels_name);
  auto kernels = kernels_name == "reference" ? make_reference_kernels() : make_xnnpack_kernels(2);
  const double ratio = golden["max_length_ratio"];
  double largest_change = 0;
  for (const auto& s : golden["sentences"]) {
    CAPTURE(s["text"].get<std::string>());
    const std::vector<int> source = s["source_ids"];
    const int max_length = int(ratio * double(source.size()));
    std::vector<int> tokens;
    const auto rows = greedy_alignment(*kernels, file, source, max_length, &tokens);
    CHECK(tokens == s["tokens"].get<std::vector<int>>());
    const auto& want = s["alignment"];
    REQUIRE(rows.size() == want.size());
    for (size_t t = 0; t < rows.size(); ++t) {
      CAPTURE(t);
      CHECK(testing::max_abs_diff(rows[t], want[t].get<std::vector<float>>()) < 1e-4);
    }
    // The head is not the layer mean the same file gives without the key (which test_parity.cc
    // checks against the reference): the choice shows in the numbers.
    const auto mean = greedy_alignment(*kernels, plain, source, max_length, nullptr);
    for (size_t t = 0; t < rows.size() && t < mean.size(); ++t)
      largest_change = std::max(largest_change, testing::max_abs_diff(rows[t], mean[t]));
  }
  CHECK(largest_change > 0.05);
}

TEST_CASE("a null alignment_head is the layer mean; bad ones are refused at load", "[alignment]") {
  auto kernels = make_reference_kernels();
  const ModelFile plain = ModelFile::from_path(testing::fixture_path("marian", "model.tfm"));
  const ModelFile null_head = ModelFile::from_bytes(marian_with_head(nullptr));
  const std::vector<int> source = {28, 66, 44, 75, 14, 10, 0};
  CHECK(greedy_alignment(*kernels, null_head, source, 14, nullptr) ==
        greedy_alignment(*kernels, plain, source, 14, nullptr));

  const std::vector<std::pair<json, std::string>> bad = {
      {json{{"layer", 2}, {"head", 0}}, "layer 2 is not a decoder layer (the model has 2, numbered from 0)"},
      {json{{"layer", -1}, {"head", 0}}, "layer -1 is not a decoder layer"},
      {json{{"layer", 0}, {"head", 4}}, "head 4 is not a head (the model has 4 per layer, numbered from 0)"},
      {json{{"layer", 0}, {"head", -2}}, "head -2 is not a head"},
      {json{{"layer", "0"}, {"head", 0}}, "layer and head must be integers"},
      {json{{"layer", 0.5}, {"head", 0}}, "layer and head must be integers"},
      {json{{"layer", 0}}, "must be {\"layer\": L, \"head\": H}"},
      {json{{"layer", 0}, {"head", 0}, {"heads", 1}}, "must be {\"layer\": L, \"head\": H}"},
      {json::array({0, 1}), "must be {\"layer\": L, \"head\": H}"},
      {json("last"), "must be {\"layer\": L, \"head\": H}"},
  };
  for (const auto& [head, message] : bad) {
    CAPTURE(head.dump());
    const std::vector<uint8_t> bytes = marian_with_head(head);
    const ModelFile file = ModelFile::from_bytes(bytes);
    REQUIRE_THROWS_AS(TransformerModel(*kernels, file), Error);
    REQUIRE_THROWS_WITH(TransformerModel(*kernels, file), Contains("'alignment_head' " + message));
    // The public facade refuses the file when it loads it.
    REQUIRE_THROWS_WITH(Translator(bytes), Contains("invalid model metadata: 'alignment_head'"));
  }
}
