// Model info on its own (core/src/translation/model_info.*), against the file's header read here
// independently (docs/FORMAT.md: the JSON at offset 24, its length at offset 16).
#include <catch.hpp>

#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "model/model_file.h"
#include "translation/model_info.h"

using namespace tformer;

namespace {

nlohmann::json header_of(const std::vector<uint8_t>& bytes) {
  uint64_t length = 0;
  std::memcpy(&length, bytes.data() + 16, 8);
  return nlohmann::json::parse(bytes.begin() + 24, bytes.begin() + 24 + long(length));
}

bool ends_with(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

TEST_CASE("model info: shape, tensors, parameters and metadata as the file says", "[model-info]") {
  const std::string variant = GENERATE(from_range(testing::fixture_variants()));
  CAPTURE(variant);
  const std::string path = testing::fixture_path(variant, "model.tfm");
  const std::vector<uint8_t> bytes = testing::read_file(path);
  const nlohmann::json header = header_of(bytes);
  const ModelFile file = ModelFile::from_path(path);
  const ModelInfo info = describe_model(file, file.config());

  CHECK(info.file_bytes == bytes.size());
  const nlohmann::json& config = header["config"];
  CHECK(info.vocab_size == config["vocab_size"].get<int>());
  CHECK(info.d_model == config["d_model"].get<int>());
  CHECK(info.heads == config["heads"].get<int>());
  CHECK(info.ffn_dim == config["ffn_dim"].get<int>());
  CHECK(info.encoder_layers == config["encoder_layers"].get<int>());
  CHECK(info.decoder_layers == config["decoder_layers"].get<int>());

  // Parameters: the elements of every weight, not the tokenizers' bytes nor int8's row scales.
  uint64_t parameters = 0;
  REQUIRE(info.tensors.size() == header["tensors"].size());
  for (size_t i = 0; i < info.tensors.size(); ++i) {
    const nlohmann::json& t = header["tensors"][i];
    CHECK(info.tensors[i].name == t["name"].get<std::string>());
    CHECK(info.tensors[i].dtype == t["dtype"].get<std::string>());
    CHECK(info.tensors[i].shape == t["shape"].get<std::vector<int64_t>>());
    CHECK(info.tensors[i].bytes == t["nbytes"].get<uint64_t>());
    uint64_t elements = 1;
    for (int64_t d : t["shape"].get<std::vector<int64_t>>()) elements *= uint64_t(d);
    if (t["dtype"] != "u8" && !ends_with(t["name"], ".scales")) parameters += elements;
  }
  CHECK(info.parameters == parameters);
  CHECK(info.parameters > 0);

  // The config as stored, every absent key with the value the engine uses.
  const nlohmann::json reported = nlohmann::json::parse(info.config_json);
  for (const auto& [key, value] : config.items()) CHECK(reported.at(key) == value);
  const nlohmann::json every_key = file.config().to_json();
  for (const auto& [key, value] : every_key.items()) {
    CAPTURE(key);
    CHECK(reported.contains(key));
  }
  CHECK(nlohmann::json::parse(info.metadata_json) == header.value("metadata", nlohmann::json::object()));
}

TEST_CASE("model info: int8 weights count as parameters, their scales do not", "[model-info]") {
  const ModelFile file = ModelFile::from_path(testing::fixture_path("marian-int8", "model.tfm"));
  const ModelFile f32 = ModelFile::from_path(testing::fixture_path("marian", "model.tfm"));
  // The same architecture in f32 and int8: the same parameter count.
  CHECK(describe_model(file, file.config()).parameters == describe_model(f32, f32.config()).parameters);
  bool has_scales = false;
  for (const TensorInfo& t : describe_model(file, file.config()).tensors) has_scales = has_scales || ends_with(t.name, ".scales");
  CHECK(has_scales);
}
