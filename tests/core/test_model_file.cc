// Broken, truncated and hostile model files: each must give a clear tformer::Error (the message
// is asserted) and never crash.
#include <catch.hpp>

#include <cstring>
#include <random>

#include "fixtures.h"
#include "model/model_file.h"
#include "tformer/translator.h"

using namespace tformer;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

std::vector<uint8_t> fixture_bytes() { return testing::read_file(testing::fixture_path("marian", "model.tfm")); }

// The header rewriters live in fixtures.h (tests/core/test_alignment_head.cc uses them too).
using testing::header_length;
using testing::with_header;
using testing::with_raw_header;

std::string header_text(const std::vector<uint8_t>& f) {
  return std::string(f.begin() + 24, f.begin() + 24 + long(header_length(f)));
}

json& tensor_entry(json& header, const std::string& name) {
  for (json& e : header["tensors"])
    if (e["name"] == name) return e;
  throw std::runtime_error("no tensor " + name);
}

void load(const std::vector<uint8_t>& bytes) { Translator t(bytes.data(), bytes.size()); }

}  // namespace

TEST_CASE("the fixture model itself loads", "[model-file]") {
  const auto f = fixture_bytes();
  Translator t(f.data(), f.size());
  CHECK(t.info().d_model == 32);
  CHECK(t.info().parameters > 10000);
}

TEST_CASE("truncated and empty files are refused with the place of the damage", "[model-file]") {
  const auto f = fixture_bytes();
  REQUIRE_THROWS_WITH(load({}), Contains("too small for a .tfm model"));
  REQUIRE_THROWS_WITH(load({f.begin(), f.begin() + 20}), Contains("too small"));
  REQUIRE_THROWS_WITH(load({f.begin(), f.begin() + 30}), Contains("truncated: the header needs"));
  REQUIRE_THROWS_WITH(load({f.begin(), f.begin() + long(f.size() / 2)}), Contains("truncated at tensor"));
  REQUIRE_THROWS_WITH(load({f.begin(), f.end() - 1}), Contains("truncated at tensor"));
  // Every cut must fail cleanly.
  for (size_t cut = 0; cut < f.size(); cut += 997) REQUIRE_THROWS_AS(load({f.begin(), f.begin() + long(cut)}), Error);
}

TEST_CASE("wrong magic, version and header length are refused", "[model-file]") {
  auto f = fixture_bytes();
  auto bad = f;
  bad[0] = 'X';
  REQUIRE_THROWS_WITH(load(bad), Contains("bad magic: this is not a .tfm model file"));
  bad = f;
  bad[8] = 7;
  REQUIRE_THROWS_WITH(load(bad), Contains("unsupported format version 7 (this build reads version 1)"));
  bad = f;
  const uint64_t huge = uint64_t(1) << 40;
  std::memcpy(&bad[16], &huge, 8);
  REQUIRE_THROWS_WITH(load(bad), Contains("header length 1099511627776 bytes is implausible"));
  bad = f;
  const uint64_t too_long = f.size();
  std::memcpy(&bad[16], &too_long, 8);
  REQUIRE_THROWS_WITH(load(bad), Contains("truncated: the header needs"));
  bad = f;
  bad[24] = '[';
  REQUIRE_THROWS_WITH(load(bad), Contains("header is not valid JSON"));
}

TEST_CASE("tensor directory errors name the tensor", "[model-file]") {
  const auto f = fixture_bytes();
  const std::string w1 = "encoder.layers.0.ffn.w1.weight";
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["offset"] = 64ull << 30; })),
                      Contains("truncated at tensor " + w1));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["offset"] = 65; })),
                      Contains("tensor " + w1 + ": offset 65 is not 64-byte aligned"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["shape"] = {32, 64}; })),
                      Contains("tensor " + w1 + " has shape [32, 64] but the config needs [64, 32]"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["nbytes"] = 12; })),
                      Contains("nbytes 12 does not match shape [64, 32] of f16"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["dtype"] = "q4"; })),
                      Contains("tensor " + w1 + ": unknown dtype \"q4\""));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["shape"] = {0, 64}; })),
                      Contains("shape has a dimension (0) that is not in [1, 2^31]"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["shape"] = "big"; })),
                      Contains("'shape' must be an array"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["offset"] = -64; })),
                      Contains("'offset' must be a non-negative integer"));
  REQUIRE_THROWS_WITH(load(with_header(f,
                                       [&](json& h) {
                                         auto& list = h["tensors"];
                                         for (size_t i = 0; i < list.size(); ++i)
                                           if (list[i]["name"] == w1) list.erase(i);
                                       })),
                      Contains("missing tensor " + w1));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { h["tensors"].push_back(h["tensors"][0]); })),
                      Contains("is listed twice"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { h["tensors"] = 5; })), Contains("'tensors' must be an array"));
}

TEST_CASE("int8 tensors without proper scales are refused", "[model-file]") {
  const auto f = testing::read_file(testing::fixture_path("marian-int8", "model.tfm"));
  load(f);  // the fixture itself is fine
  const std::string w1 = "encoder.layers.0.ffn.w1.weight";
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1).erase("scales"); })),
                      Contains("int8 tensor " + w1 + " has no 'scales'"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["scales"] = 3; })),
                      Contains("tensor " + w1 + ": 'scales' must be a tensor name"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["scales"] = "nowhere"; })),
                      Contains("missing tensor nowhere"));
  // Scales of another matrix: [32] where w1 has 64 rows.
  REQUIRE_THROWS_WITH(
      load(with_header(f, [&](json& h) { tensor_entry(h, w1)["scales"] = "encoder.layers.0.ffn.w2.weight.scales"; })),
      Contains("int8 tensor " + w1 + ": scales encoder.layers.0.ffn.w2.weight.scales must be f32 of shape [64]"));
  // Scales that are themselves int8 (another matrix's values, so of the wrong shape and dtype).
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["scales"] = w1; })),
                      Contains("must be f32 of shape [64]"));
  // Scales stored as f16: right shape, wrong dtype.
  REQUIRE_THROWS_WITH(load(with_header(f,
                                       [&](json& h) {
                                         json& s = tensor_entry(h, w1 + ".scales");
                                         s["dtype"] = "f16";
                                         s["nbytes"] = 128;
                                       })),
                      Contains("must be f32 of shape [64]"));
}

TEST_CASE("absurd or unknown config values are refused", "[model-file]") {
  const auto f = fixture_bytes();
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["heads"] = 5; })),
                      Contains("d_model 32 is not a multiple of heads 5"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["vocab_size"] = -3; })),
                      Contains("'vocab_size' = -3 is outside"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["d_model"] = 1ll << 40; })),
                      Contains("'d_model' = 1099511627776 is outside"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["norm"] = "sandwich"; })),
                      Contains("'norm' must be one of: post, pre"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["flash"] = true; })),
                      Contains("unknown key 'flash'"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"].erase("d_model"); })),
                      Contains("missing key 'd_model'"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["encoder_layers"] = "two"; })),
                      Contains("'encoder_layers' must be an integer"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["config"]["vocab_size"] = 200; })),
                      Contains("the SentencePiece model has 256 pieces but the config says vocab_size 200"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["format"] = "onnx"; })), Contains("'format' is not"));
}

TEST_CASE("info().config fills in the defaults of absent keys", "[model-file]") {
  const auto f = fixture_bytes();
  const auto stripped = with_header(f, [](json& h) {
    for (const char* key : {"norm", "activation", "output_bias", "prenorm_raw_self_kv", "suppress_unk"}) h["config"].erase(key);
  });
  Translator t(stripped.data(), stripped.size());
  const json config = json::parse(t.info().config_json);
  CHECK(config["norm"] == "post");
  CHECK(config["activation"] == "relu");
  CHECK(config["output_bias"] == true);
  CHECK(config["prenorm_raw_self_kv"] == false);
  CHECK(config["suppress_unk"] == false);
  CHECK(config["layer_norm_eps"] == 1e-06);  // as stored
  CHECK(config["tied_embeddings"] == "all");
  Translator original(f.data(), f.size());
  CHECK(json::parse(original.info().config_json) == json::parse(f.begin() + 24, f.begin() + 24 + long(header_length(f)))["config"]);
}

TEST_CASE("tokenizer problems are refused", "[model-file]") {
  const auto f = fixture_bytes();
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["tokenizer"]["type"] = "bpe"; })),
                      Contains("tokenizer type 'bpe' is not supported"));
  REQUIRE_THROWS_WITH(load(with_header(f, [](json& h) { h["tokenizer"]["source"] = "nope"; })),
                      Contains("tokenizer tensor 'nope' is missing"));
  // A corrupted SentencePiece model inside an otherwise valid file.
  auto bad = f;
  const json header = json::parse(f.begin() + 24, f.begin() + 24 + long(header_length(f)));
  const uint64_t data_start = (24 + header_length(f) + 63) / 64 * 64;
  for (const auto& e : header["tensors"])
    if (e["name"] == "tokenizer.source")
      for (uint64_t i = 0; i < 64; ++i) bad[data_start + e["offset"].get<uint64_t>() + i] = 0xFF;
  REQUIRE_THROWS_WITH(load(bad), Contains("embedded SentencePiece model"));
}

TEST_CASE("random corruption of the header never crashes", "[model-file]") {
  const auto f = fixture_bytes();
  std::mt19937 rng(99);
  const size_t header_end = 24 + header_length(f);
  int refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto bad = f;
    for (int k = 0; k < 3; ++k) bad[rng() % header_end] = uint8_t(rng());
    try {
      load(bad);
    } catch (const Error&) {
      ++refused;
    }
  }
  CHECK(refused > 200);  // most corruptions are caught; the rest still load a consistent model
}

TEST_CASE("a missing model path is reported", "[model-file]") {
  REQUIRE_THROWS_WITH(Translator("/nonexistent/model.tfm"), Contains("cannot open model file '/nonexistent/model.tfm'"));
}

TEST_CASE("a directory or an unreadable path gives the OS's reason", "[model-file]") {
  REQUIRE_THROWS_WITH(Translator("/nonexistent/model.tfm"), Contains("No such file or directory"));
  REQUIRE_THROWS_WITH(Translator(std::string(TFORMER_FIXTURES_DIR)), Contains("it is a directory"));
}

TEST_CASE("max_positions must leave room for a source token next to BOS and EOS", "[model-file]") {
  const auto f = testing::read_file(testing::fixture_path("tutorial", "model.tfm"));  // source BOS and EOS
  for (int n : {2}) {
    REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { h["config"]["max_positions"] = n; })),
                        Contains("'max_positions' = 2 leaves no room for a source token next to BOS and EOS"));
  }
  // Marian's convention has EOS only: 2 positions hold one token and EOS.
  const auto m = fixture_bytes();
  Translator t(with_header(m, [](json& h) { h["config"]["max_positions"] = 2; }));
  const auto out = t.translate({"Die Katze schläft."});
  REQUIRE(out[0].sentences.size() > 1);  // one token per piece
  for (const auto& s : out[0].sentences) CHECK(s.source_tokens.size() == 2);
}

TEST_CASE("deeply nested header JSON is refused while parsing, at any place", "[model-file]") {
  const auto f = fixture_bytes();
  const std::string header = header_text(f);
  for (size_t depth : {100, 10000, 60000}) {
    CAPTURE(depth);
    const std::string nest = std::string(depth, '[') + std::string(depth, ']');
    // In the metadata, as a tensor's dtype and as its shape.
    for (const std::string& at : {std::string("\"metadata\":"), std::string("\"dtype\":"), std::string("\"shape\":")}) {
      CAPTURE(at);
      std::string h = header;
      const size_t k = h.find(at);
      REQUIRE(k != std::string::npos);
      h.insert(k + at.size(), nest + (at == "\"metadata\":" ? ",\"x\":" : ",\"y\":"));
      // ("x"/"y" keep the original value under another key, so the JSON stays valid.)
      REQUIRE_THROWS_WITH(load(with_raw_header(f, h)), Contains("header nests arrays or objects more than 64 levels deep"));
    }
  }
  // Objects count as well; 60 levels in all (within the cap of 64) are fine.
  std::string objects;
  for (int i = 0; i < 5000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(5000, '}');
  REQUIRE_THROWS_WITH(load(with_raw_header(f, "{\"deep\":" + objects + "," + header.substr(1))),
                      Contains("more than 64 levels deep"));
  const std::string fine = std::string(60, '[') + std::string(60, ']');
  REQUIRE_NOTHROW(load(with_raw_header(f, "{\"deep\":" + fine + "," + header.substr(1))));
}

TEST_CASE("unexpected header values are described, never printed whole", "[model-file]") {
  const auto f = fixture_bytes();
  const std::string w1 = "encoder.layers.0.ffn.w1.weight";
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["dtype"] = std::string(100000, 'x'); })),
                      Contains("unknown dtype a string of 100000 bytes"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["dtype"] = json::array({1, 2, 3}); })),
                      Contains("unknown dtype an array of 3"));
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, w1)["shape"] = {64, json::object()}; })),
                      Contains("shape has a dimension (an object) that is not in [1, 2^31]"));
}

TEST_CASE("tensors that share bytes are refused", "[model-file]") {
  const auto f = fixture_bytes();
  const std::string a = "encoder.layers.0.ffn.w1.weight", b = "encoder.layers.1.ffn.w1.weight";
  REQUIRE_THROWS_WITH(load(with_header(f, [&](json& h) { tensor_entry(h, b)["offset"] = tensor_entry(h, a)["offset"]; })),
                      Contains(") overlap"));
  // Partly: b starts 64 bytes into a.
  REQUIRE_THROWS_WITH(load(with_header(f,
                                       [&](json& h) {
                                         tensor_entry(h, b)["offset"] = tensor_entry(h, a)["offset"].get<uint64_t>() + 64;
                                       })),
                      Contains("overlap"));
}

TEST_CASE("the memory a model claims is bounded", "[model-file]") {
  const auto f = fixture_bytes();
  const ModelFile file = ModelFile::from_bytes(f);
  // The file, the f16 weights widened and the 128 x 32 positions table.
  CHECK(file.memory_estimate() > f.size() + 128 * 32 * 4);
  CHECK(file.memory_estimate() < 4 * f.size());
  REQUIRE_NOTHROW(file.check_memory());
  REQUIRE_THROWS_WITH(file.check_memory(f.size()), Contains("the model would need about") && Contains("MiB allowed here"));
  // A config whose positional table alone needs 4 GiB (65536 positions x 16384 wide) in a
  // 117 KB file: refused before anything is allocated.
  const auto huge = with_header(f, [](json& h) {
    h["config"]["max_positions"] = 65536;
    h["config"]["d_model"] = 16384;
  });
  REQUIRE_THROWS_WITH(load(huge), Contains("the positional table of max_positions 65536 x d_model 16384 would take 4096 MiB"));
}

TEST_CASE("special ids must be pieces of both tokenizers", "[model-file]") {
  const auto f = testing::read_file(testing::fixture_path("tutorial", "model.tfm"));
  for (const char* key : {"bos_id", "eos_id", "pad_id", "unk_id"}) {
    CAPTURE(key);
    REQUIRE_THROWS_WITH(load(with_header(f,
                                         [&](json& h) {
                                           h["config"]["vocab_size"] = 300;
                                           h["config"][key] = 299;
                                         })),
                        Contains(std::string("config '") + key + "' = 299 is not a piece of the source tokenizer, which has 256 pieces"));
  }
}
