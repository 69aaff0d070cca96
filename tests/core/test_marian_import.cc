// The Marian importer (tformer/marian.h): the fixture model written as a Marian .bin imports back
// to the fixture's values and translates as the fixture does; every refused option, broken file
// and missing piece gives a tformer::Error that names it. (tests/marian/test_import.py checks every
// variant's .tfm against its Marian files by meaning.)
#include <catch.hpp>

#include <string>
#include <vector>

#include "fixtures.h"
#include "marian/gzip.h"
#include "marian/npy.h"
#include "marian/options.h"
#include "marian/yaml.h"
#include "marian_files.h"
#include "tformer/marian.h"
#include "tformer/translator.h"

using tformer::Error;
using tformer::MarianFile;
using tformer::MarianImportOptions;
using tformer::ModelFile;
using namespace tformer::testing;

namespace {

std::vector<MarianFile> with_options(const std::string& extra) { return fixture_as_marian(fixture_options() + extra); }

}  // namespace

TEST_CASE("a Marian .bin of the fixture imports to the fixture's values and translations", "[marian]") {
  const auto files = fixture_as_marian();
  const tformer::MarianImport m = tformer::import_marian(files);
  CHECK(m.name == "model.deen");
  CHECK(m.model_file == "model.deen.bin");
  CHECK(m.warnings.empty());
  const ModelFile fixture = ModelFile::from_path(fixture_path("marian", "model.tfm"));
  const ModelFile imported = ModelFile::from_bytes(m.tfm);
  CHECK(imported.config().d_model == 32);
  CHECK(imported.tokenizer().type == "sentencepiece");
  for (const auto& t : fixture.tensors()) {
    if (t.name.rfind("tokenizer.", 0) == 0) continue;
    INFO(t.name);
    REQUIRE(imported.has(t.name));
    CHECK(imported.floats(t.name, t.shape) == fixture.floats(t.name, t.shape));  // f16 widened: exact
  }
  const auto summary = nlohmann::json::parse(m.summary_json);
  CHECK(summary["variant"] == "self-attention decoder, post-norm, relu, embeddings tied all");
  CHECK(summary["vocab_sizes"] == nlohmann::json::array({256, 256}));
  CHECK(summary["shortlist"].is_null());

  // Translating the import equals the PyTorch reference's greedy output of the fixture (the
  // fixture's max_positions is 128, the import's 512: the same outputs for these short lines).
  tformer::TranslatorConfig config;
  config.threads = 1;
  tformer::Translator direct(m.tfm, config);
  const auto lines = read_lines(fixture_path("marian", "input.txt"));
  const auto expected = read_lines(fixture_path("marian", "expected.greedy.txt"));
  const auto out = direct.translate(lines, tformer::testing::plain_options());
  REQUIRE(out.size() == expected.size());
  for (size_t i = 0; i < out.size(); ++i) CHECK(out[i].text == expected[i]);
}

TEST_CASE("the import's weights option stores matrices as asked", "[marian]") {
  const auto files = fixture_as_marian();
  for (const char* w : {"f16", "int8", "f32"}) {
    MarianImportOptions o;
    o.weights = w;
    const ModelFile f = ModelFile::from_bytes(tformer::import_marian(files, o).tfm);
    const std::string want = std::string(w) == "int8" ? "i8" : w;
    CHECK(std::string(tformer::dtype_name(f.tensor("encoder.layers.0.ffn.w1.weight").dtype)) == want);
    CHECK(std::string(tformer::dtype_name(f.tensor("encoder.layers.0.ffn.w1.bias").dtype)) == "f32");
  }
  MarianImportOptions bad;
  bad.weights = "f8";
  CHECK_THAT(import_error(files, bad), Catch::Contains("--weights") && Catch::Contains("f8"));
}

TEST_CASE("gzip copies are read, and broken ones named", "[marian]") {
  auto files = fixture_as_marian();
  std::vector<MarianFile> gz;
  for (const auto& f : files) gz.push_back({f.name + ".gz", gzip_bytes(f.bytes)});
  CHECK(tformer::import_marian(gz).tfm == tformer::import_marian(files).tfm);

  auto truncated = gz;
  truncated[0].bytes.resize(truncated[0].bytes.size() / 2);
  CHECK_THAT(import_error(truncated), Catch::Contains("model.deen.bin.gz") && Catch::Contains("truncated"));
  auto not_gzip = gz;
  not_gzip[1].bytes = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', ' ', 'n', 'o', 't', ' ', 'g', 'z'};
  CHECK_THAT(import_error(not_gzip), Catch::Contains("vocab.deen.spm.gz") && Catch::Contains("not a gzip file"));
  auto bad_crc = gz;
  bad_crc[0].bytes[bad_crc[0].bytes.size() - 6] ^= 0x40;  // inside the CRC-32 trailer
  CHECK_THAT(import_error(bad_crc), Catch::Contains("model.deen.bin.gz") && Catch::Contains("corrupted"));
  auto trailing = gz;
  trailing[0].bytes.push_back('x');
  CHECK_THAT(import_error(trailing), Catch::Contains("garbage after the gzip data"));
  CHECK_THROWS_AS(tformer::marian::gunzip(nullptr, 0, 100, "empty.gz", "model"), Error);
}

TEST_CASE("truncated and corrupted .bin files give an error naming the file, never a crash", "[marian]") {
  const auto files = fixture_as_marian();
  const std::vector<uint8_t>& bin = files[0].bytes;
  // Every cut inside the header and the first items, then a sample through the data.
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 4096 && n < bin.size(); ++n) cuts.push_back(n);
  for (size_t n = 4096; n < bin.size(); n += 997) cuts.push_back(n);
  for (size_t n : cuts) {
    auto f = files;
    f[0].bytes.resize(n);
    INFO("cut at " << n);
    CHECK_THAT(import_error(f), Catch::Contains("model.deen.bin"));
  }
  // Flipped bytes in the header: an error or (a byte of a name or the padding) a model.
  for (size_t i = 0; i < 2048 && i < bin.size(); i += 3) {
    auto f = files;
    f[0].bytes[i] ^= 0xA5;
    INFO("byte " << i);
    const std::string e = import_error(f);
    CHECK(!e.empty());
  }
  auto f = files;
  f[0].bytes[0] = 2;  // the format version
  CHECK_THAT(import_error(f), Catch::Contains("binary format version 2"));
}

TEST_CASE("every refused Marian option is named", "[marian]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"type: s2s\n", "type is 's2s'"},
      {"transformer-ffn-activation: gelu\n", "transformer-ffn-activation 'gelu'"},
      {"transformer-decoder-autoreg: average-attention\n", "transformer-decoder-autoreg 'average-attention'"},
      {"transformer-decoder-autoreg: rnn\ndec-cell: lstm\n", "dec-cell 'lstm'"},
      {"transformer-decoder-autoreg: rnn\ndec-cell: ssru\nlayer-normalization: true\n", "layer-normalization"},
      {"transformer-train-position-embeddings: true\n", "transformer-train-position-embeddings"},
      {"transformer-no-projection: true\n", "transformer-no-projection"},
      {"transformer-pool: true\n", "transformer-pool"},
      {"right-left: true\n", "right-left"},
      {"ulr: true\n", "ulr"},
      {"transformer-tied-layers: [1, 1]\n", "transformer-tied-layers"},
      {"factors-dim-emb: 8\n", "factored vocabularies"},
      {"lemma-dim-emb: 8\n", "factored vocabularies"},
      {"input-types: [sequence, class]\n", "input-types"},
      {"transformer-ffn-depth: 3\n", "transformer-ffn-depth"},
      {"transformer-decoder-dim-ffn: 128\n", "transformer-decoder-dim-ffn 128"},
      {"transformer-postprocess-emb: dn\n", "transformer-postprocess-emb 'dn'"},
      {"transformer-preprocess: n\n", "transformer-preprocess 'n'"},
      {"transformer-heads: 5\n", "transformer-heads 5"},
      {"dim-emb: 30\n", "dim-emb 30 is not an even multiple of transformer-heads 4"},
      {"dim-emb: abc\n", "dim-emb"},
      {"transformer-guided-alignment-layer: 7\nguided-alignment: alignments.txt\n", "transformer-guided-alignment-layer '7'"},
  };
  for (const auto& [opts, fragment] : cases) {
    INFO(opts);
    // Later keys of a YAML mapping replace earlier ones (yaml-cpp and PyYAML alike).
    CHECK_THAT(import_error(with_options(opts)), Catch::Contains(fragment));
  }
  // Options that disagree with the parameters: the shapes and the vocabularies are checked.
  CHECK_THAT(import_error(with_options("transformer-dim-ffn: 96\n")), Catch::Contains("has shape [32, 64], the options need [32, 96]"));
  CHECK_THAT(import_error(with_options("enc-depth: 3\n")), Catch::Contains("missing parameters encoder_l3_"));
  CHECK_THAT(import_error(with_options("enc-depth: 1\n")), Catch::Contains("parameters this converter does not know: encoder_l2_"));
  CHECK_THAT(import_error(fixture_as_marian(
                 "type: transformer\ndim-emb: 32\nenc-depth: 2\ndec-depth: 2\ntransformer-heads: 4\n"
                 "transformer-dim-ffn: 64\ntransformer-ffn-activation: relu\ntied-embeddings-all: true\n"
                 "dim-vocabs: [300, 256]\n")),
             Catch::Contains("dim-vocabs [300, 256] does not match"));
  CHECK_THAT(import_error(fixture_as_marian("[not, a, mapping]\n")), Catch::Contains("expected a YAML mapping"));
  CHECK_THAT(import_error(fixture_as_marian("type: [unclosed\n")), Catch::Contains("special:model.yml") &&
                                                                      Catch::Contains("invalid YAML"));
}

TEST_CASE("options that do not change the model are ignored, unknown ones draw a warning", "[marian]") {
  const auto m = tformer::import_marian(with_options("transformer-dropout: 0.1\nbeam-size: 4\nmystery-option: 3\n"
                                                     "output-approx-knn: [128, 1024]\n"));
  REQUIRE(m.warnings.size() == 2);
  CHECK_THAT(m.warnings[0], Catch::Contains("does not know") && Catch::Contains("mystery-option"));
  CHECK_THAT(m.warnings[1], Catch::Contains("output-approx-knn"));
  const auto s = nlohmann::json::parse(m.summary_json);
  CHECK(s["ignored_options"] == nlohmann::json::array({"beam-size", "dim-vocabs", "transformer-dropout"}));
  CHECK(s["unknown_options"] == nlohmann::json::array({"mystery-option"}));
  // Guided alignment names the alignment head: the first head of the chosen layer.
  const auto g = tformer::import_marian(with_options("guided-alignment: align.txt\ntransformer-guided-alignment-layer: 1\n"));
  const ModelFile f = ModelFile::from_bytes(g.tfm);
  CHECK(f.header()["metadata"]["alignment_head"] == nlohmann::json({{"layer", 0}, {"head", 0}}));
}

TEST_CASE("missing and misnamed files are named", "[marian]") {
  auto files = fixture_as_marian();
  CHECK_THAT(import_error({files[0]}), Catch::Contains("no vocabulary"));
  CHECK_THAT(import_error({files[1]}), Catch::Contains("no Marian model"));
  auto two = files;
  two.push_back({"model.other.npz", {}});
  CHECK_THAT(import_error(two), Catch::Contains("several models"));
  MarianImportOptions pick;
  pick.model = "model.other.npz";
  CHECK_THAT(import_error(two, pick), Catch::Contains("model.other.npz") && Catch::Contains("not a readable .npz"));
  MarianImportOptions vocab;
  vocab.vocabs = {"absent.spm"};
  CHECK_THAT(import_error(files, vocab), Catch::Contains("vocabulary absent.spm is missing"));
  vocab.vocabs = {"vocab.deen.txt"};
  files.push_back({"vocab.deen.txt", {'x'}});
  CHECK_THAT(import_error(files, vocab), Catch::Contains("expected a .yml table or a SentencePiece .spm model"));
  auto broken_spm = fixture_as_marian();
  broken_spm[1].bytes.resize(20);
  CHECK_THAT(import_error(broken_spm), Catch::Contains("vocab.deen.spm: not a SentencePiece model"));
  auto dup = fixture_as_marian();
  dup.push_back(dup[0]);
  CHECK_THAT(import_error(dup), Catch::Contains("two files are named model.deen.bin"));
  // A .yml vocabulary needs its SentencePiece model.
  auto yml = fixture_as_marian();
  yml.push_back({"opus.vocab.yml", {'a', ':', ' ', '0', '\n'}});
  MarianImportOptions table;
  table.vocabs = {"opus.vocab.yml"};
  CHECK_THAT(import_error(yml, table), Catch::Contains("source SentencePiece model source.spm is missing"));
}

TEST_CASE("Marian vocabulary tables are read strictly", "[marian]") {
  using tformer::marian::read_vocab_yml;
  CHECK(read_vocab_yml("</s>: 0\n<unk>: 1\n\"yes\": 2\n1: 3\n", "v.yml") ==
        std::vector<std::string>{"</s>", "<unk>", "yes", "1"});
  CHECK_THROWS_WITH(read_vocab_yml("a: 0\nb: 2\n", "v.yml"), Catch::Contains("v.yml") && Catch::Contains("id 1 is missing"));
  CHECK_THROWS_WITH(read_vocab_yml("a: 0\nb: 0\n", "v.yml"), Catch::Contains("id 0 is given to both"));
  CHECK_THROWS_WITH(read_vocab_yml("a: zero\n", "v.yml"), Catch::Contains("not an integer"));
  CHECK_THROWS_WITH(read_vocab_yml("[a, b]\n", "v.yml"), Catch::Contains("non-empty mapping"));
  CHECK_THROWS_WITH(read_vocab_yml("{a: 0\n", "v.yml"), Catch::Contains("invalid vocabulary YAML"));
  CHECK_THROWS_WITH(read_vocab_yml("a: [0]\n", "v.yml"), Catch::Contains("line 1: a vocabulary entry is not a piece: id pair"));
  CHECK_THROWS_WITH(read_vocab_yml("a: 0\n\xff: 1\n", "v.yml"), Catch::Contains("not UTF-8"));
  // Options are typed when read, with yaml-cpp's conversions, as Marian reads them.
  const tformer::marian::MarianOptions o(
      tformer::marian::parse_options("a: yes\nb: 1e-6\nc: 1.5\nd: 0x10\ne: ~\nf: \"true\"\ng: off\nh: [1, 2]\n", "o.yml"),
      "o.yml");
  CHECK(o.flag("a"));
  CHECK(o.text("b") == "1e-6");
  CHECK_THROWS_WITH(o.integer("c"), Catch::Contains("o.yml: option c is '1.5', not an integer"));
  CHECK(o.integer("d") == 16);
  CHECK_FALSE(o.given("e"));
  CHECK(o.integer("dim-emb") == 512);  // absent or null: Marian's default
  CHECK(o.flag("f"));
  CHECK_FALSE(o.flag("g"));
  CHECK(o.list("h") == std::vector<std::string>{"1", "2"});
  CHECK_THROWS_WITH(o.flag("b"), Catch::Contains("option b is '1e-6', not true or false"));
  CHECK(o.typed("a") == nlohmann::ordered_json("yes"));  // not an option of the architecture: as written
}

TEST_CASE("a lexical shortlist is checked and described", "[marian]") {
  auto files = fixture_as_marian();
  // marian-dev's binary shortlist: each of the 256 source words lists target ids w and w+1.
  auto shortlist = [](uint32_t bad_id, bool good_checksum) {
    std::vector<uint8_t> body;
    put64(body, 100);
    put64(body, 50);
    put64(body, 257);
    put64(body, 512);
    for (uint64_t i = 0; i <= 256; ++i) put64(body, 2 * i);
    for (uint32_t w = 0; w < 256; ++w) {
      for (uint32_t id : {w, (w + 1) % 256 == 0 ? bad_id : w + 1})
        for (int k = 0; k < 4; ++k) body.push_back(uint8_t(id >> (8 * k)));
    }
    uint64_t seed = 0;
    for (size_t p = 0; p + 8 <= body.size(); p += 8) {
      uint64_t v = 0;
      std::memcpy(&v, &body[p], 8);
      seed ^= v + 0x9e3779b9 + (seed << 6) + (seed >> 2);
    }
    std::vector<uint8_t> out;
    put64(out, 0xF11A48D5013417F5ull);
    put64(out, good_checksum ? seed : seed + 1);
    out.insert(out.end(), body.begin(), body.end());
    return out;
  };
  auto with_lex = files;
  with_lex.push_back({"lex.50.50.deen.s2t.bin", shortlist(7, true)});
  const auto m = tformer::import_marian(with_lex);
  REQUIRE(m.has_shortlist);
  CHECK(m.shortlist.file == "lex.50.50.deen.s2t.bin");
  CHECK(m.shortlist.first == 100);
  CHECK(m.shortlist.best == 50);
  CHECK(m.shortlist.source_words == 256);
  CHECK(m.shortlist.candidates == 512);
  CHECK(m.warnings.empty());
  // Carried in the .tfm unchanged, as the u8 tensor "shortlist".
  const ModelFile f = ModelFile::from_bytes(m.tfm);
  const std::string blob = f.bytes_of("shortlist");
  CHECK(std::vector<uint8_t>(blob.begin(), blob.end()) == with_lex.back().bytes);

  auto bad_checksum = files;
  bad_checksum.push_back({"lex.50.50.deen.s2t.bin", shortlist(7, false)});
  CHECK_THAT(import_error(bad_checksum), Catch::Contains("lex.50.50.deen.s2t.bin") && Catch::Contains("checksum"));
  auto bad_id = files;
  bad_id.push_back({"lex.50.50.deen.s2t.bin", shortlist(4000, true)});
  CHECK_THAT(import_error(bad_id), Catch::Contains("lex.50.50.deen.s2t.bin") && Catch::Contains("target id 4000"));
  auto truncated = files;
  truncated.push_back({"lex.50.50.deen.s2t.bin", shortlist(7, true)});
  truncated.back().bytes.resize(1000);
  CHECK_THAT(import_error(truncated), Catch::Contains("lex.50.50.deen.s2t.bin") && Catch::Contains("1000 bytes"));
  auto text = files;
  text.push_back({"lex.s2t", {'a', ' ', 'b', ' ', '0', '.', '5', '\n'}});
  const auto t = tformer::import_marian(text);
  CHECK_FALSE(t.has_shortlist);
  REQUIRE(t.warnings.size() == 1);
  CHECK_THAT(t.warnings[0], Catch::Contains("not a binary lexical shortlist"));
}

TEST_CASE("the .npy reader takes numpy's headers and refuses the rest by name", "[marian]") {
  // A .npy file as numpy writes it: magic, version, header length, a padded dict, the data.
  auto npy = [](const std::string& dict, size_t data_bytes, int major = 1) {
    std::string header = dict;
    const size_t pre = major == 1 ? 10 : 12;
    while ((pre + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(uint8_t(header.size() >> (8 * i)));
    out.insert(out.end(), header.begin(), header.end());
    out.resize(out.size() + data_bytes, 0);
    return out;
  };
  using tformer::marian::MarianItem;
  using tformer::marian::parse_npy;
  MarianItem it;
  const auto ok = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 24);
  parse_npy(ok.data(), ok.size(), "m.npz: entry x.npy", it);
  CHECK(it.type == "float32");
  CHECK(it.shape == std::vector<int64_t>{3, 2});
  CHECK(it.size == 24);
  const auto v2 = npy("{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }", 5, 2);
  parse_npy(v2.data(), v2.size(), "m.npz: entry special:model.yml.npy", it);
  CHECK(it.type == "int8");
  CHECK(it.shape == std::vector<int64_t>{5});
  auto refused = [&](const std::vector<uint8_t>& b) {
    MarianItem x;
    try {
      parse_npy(b.data(), b.size(), "m.npz: entry x.npy", x);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(refused(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", 12)), Catch::Contains("dtype '>f4'"));
  CHECK_THAT(refused(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 3)), Catch::Contains("dtype '|b1'"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", 24)), Catch::Contains("Fortran"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 20)),
             Catch::Contains("m.npz: entry x.npy") && Catch::Contains("truncated array"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'shape': (3,), }", 12)), Catch::Contains("lacks descr, fortran_order or shape"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", 12)), Catch::Contains("integers"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", 12)), Catch::Contains("unknown key 'x'"));
  CHECK_THAT(refused(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12, 4)), Catch::Contains("version 4"));
  auto cut = ok;
  cut.resize(30);
  CHECK_THAT(refused(cut), Catch::Contains("truncated .npy header"));
  CHECK_THAT(refused({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}), Catch::Contains("not a .npy array"));
}
