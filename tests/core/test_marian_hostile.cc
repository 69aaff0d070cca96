// Hostile Marian folders (tformer/marian.h): alias and decompression bombs, files past their
// kind's size limit, crafted names and sizes. Each is refused with a message a person can act on,
// before the importer allocates for it; files the import does not need are never read.
#include <catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fixtures.h"
#include "marian/yaml.h"
#include "marian_files.h"
#include "tformer/marian.h"

using tformer::Error;
using tformer::MarianFile;
using tformer::MarianImportOptions;
using namespace tformer::testing;

namespace {

std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// A decoder.yml whose aliases stand for 2^depth copies of a list (a "billion laughs").
std::string alias_bomb(int depth) {
  std::string y = "a0: &a0 [x, x, x, x]\n";
  for (int i = 1; i <= depth; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p + ", " + p + ", " + p + ", " + p + "]\n";
  }
  return y;
}

// Files in memory that record what the import reads, and refuse to read some.
class RecordingFiles : public tformer::MarianFileSource {
 public:
  RecordingFiles(std::vector<MarianFile> files, std::set<std::string> unreadable)
      : files_(std::move(files)), unreadable_(std::move(unreadable)) {}
  std::vector<std::string> names() const override {
    std::vector<std::string> n;
    for (const auto& f : files_) n.push_back(f.name);
    return n;
  }
  tformer::MarianBytes read(const std::string& name, size_t limit) override {
    reads[name] = limit;
    if (unreadable_.count(name)) throw Error(name + " cannot be read here");
    for (const auto& f : files_) {
      if (f.name == name) return {f.bytes.data(), f.bytes.size()};
    }
    throw Error(name + " is missing");
  }
  std::map<std::string, size_t> reads;

 private:
  std::vector<MarianFile> files_;
  std::set<std::string> unreadable_;
};

}  // namespace

TEST_CASE("YAML aliases are refused in every options file, and deep nesting is named", "[marian]") {
  // decoder.yml: 4^12 (16 million) nodes in 400 bytes.
  auto files = fixture_as_marian();
  files.push_back({"decoder.yml", bytes(alias_bomb(12))});
  CHECK_THAT(import_error(files), Catch::Contains("decoder.yml: line 2: a YAML alias"));
  // The model's own options (special:model.yml).
  CHECK_THAT(import_error(fixture_as_marian(fixture_options() + alias_bomb(12))),
             Catch::Contains("model.deen.bin:special:model.yml: line") && Catch::Contains("a YAML alias"));
  // --config.
  auto config = fixture_as_marian();
  config.push_back({"config.train.yml", bytes(fixture_options() + "x: &x 1\ny: *x\n")});
  MarianImportOptions with_config;
  with_config.config = "config.train.yml";
  CHECK_THAT(import_error(config, with_config), Catch::Contains("config.train.yml: line") && Catch::Contains("alias"));
  // A vocabulary table.
  CHECK_THROWS_WITH(tformer::marian::read_vocab_yml("a: &i 0\nb: *i\n", "v.yml"), Catch::Contains("v.yml: line 2: a YAML alias"));
  // Nesting: past the importer's bound, and far past yaml-cpp's own (its recursion limit).
  for (int depth : {40, 20000}) {
    INFO(depth);
    auto deep = fixture_as_marian();
    deep.push_back({"decoder.yml", bytes("models: " + std::string(size_t(depth), '[') + std::string(size_t(depth), ']') + "\n")});
    CHECK_THAT(import_error(deep), Catch::Contains("decoder.yml: line 1: YAML nested more than 32 levels deep"));
  }
  // An anchor without an alias is harmless YAML and stays allowed.
  CHECK_NOTHROW(tformer::import_marian(fixture_as_marian(fixture_options() + "transformer-dropout: &d 0.1\n")));
}

TEST_CASE(".npz directories that claim more than their data can hold are refused before inflating", "[marian]") {
  auto with_model = [](const std::vector<uint8_t>& npz) {
    auto files = fixture_as_marian();
    files[0] = {"model.deen.npz", npz};
    return files;
  };
  // Six entries sharing one deflated body (each would inflate to 64 MiB).
  std::vector<ZipEntry> shared = {zip_entry("a0.npy", std::vector<uint8_t>(64 << 20, 0))};
  for (int i = 1; i < 6; ++i) {
    ZipEntry e;
    e.name = "a" + std::to_string(i) + ".npy";
    e.uncompressed = 64 << 20;
    e.shares = 0;
    shared.push_back(e);
  }
  CHECK_THAT(import_error(with_model(write_zip(shared))), Catch::Contains("model.deen.npz") &&
                                                              Catch::Contains("share their data"));
  // An entry claiming more than deflate can make of its own compressed bytes.
  ZipEntry liar = zip_entry("x.npy", std::vector<uint8_t>(1000, 1));
  liar.uncompressed = uint64_t(1) << 31;
  CHECK_THAT(import_error(with_model(write_zip({liar}))), Catch::Contains("entry x.npy: claims 2147483648 bytes from") &&
                                                             Catch::Contains("impossible"));
  // Entries each within deflate's ratio, more than 2 GiB in all.
  std::vector<ZipEntry> many;
  for (int i = 0; i < 3; ++i) {
    ZipEntry e{"b" + std::to_string(i) + ".npy", std::vector<uint8_t>(800000, 0x55), 800000ull * 1000, 0, false, -1};
    many.push_back(e);
  }
  CHECK_THAT(import_error(with_model(write_zip(many))), Catch::Contains("model.deen.npz: its arrays hold more than 2 GiB"));
}

TEST_CASE("gzip copies are decompressed within the limit of their kind", "[marian]") {
  auto files = fixture_as_marian();
  // A vocabulary of 17 MiB: its trailer says so, and it is refused before inflating. A trailer
  // that claims more than its compressed bytes can hold is no size: the data decides.
  auto declared = files;
  declared[1] = {"vocab.deen.spm.gz", gzip_bytes(std::vector<uint8_t>(17 << 20, 'x'))};
  CHECK_THAT(import_error(declared), Catch::Contains("vocab.deen.spm.gz: decompresses to more than 16 MiB, the limit for "
                                                     "SentencePiece model files"));
  auto liar = files;
  liar[1] = {"vocab.deen.spm.gz", gzip_bytes(liar[1].bytes)};
  for (int i = 0; i < 4; ++i) liar[1].bytes[liar[1].bytes.size() - 4 + i] = 0xFF;
  CHECK_THAT(import_error(liar), Catch::Contains("vocab.deen.spm.gz: corrupted gzip data (incorrect length check)"));
  // Two members: the trailer declares the last one's byte, the first inflates to 17 MiB.
  auto members = files;
  std::vector<uint8_t> gz = gzip_bytes(std::vector<uint8_t>(17 << 20, 'x'));
  const std::vector<uint8_t> tail = gzip_bytes({'y'});
  gz.insert(gz.end(), tail.begin(), tail.end());
  members[1] = {"vocab.deen.spm.gz", gz};
  CHECK_THAT(import_error(members), Catch::Contains("vocab.deen.spm.gz: decompresses to more than 16 MiB"));
  // 64 MiB of YAML in 65 KB: options YAML may hold 256 KiB.
  auto yaml = files;
  std::string text = "models: [model.deen.bin]\n";
  while (text.size() < (64u << 20)) text += "# " + std::string(1000, 'y') + "\n";
  yaml.push_back({"decoder.yml.gz", gzip_bytes(bytes(text))});
  CHECK_THAT(import_error(yaml), Catch::Contains("decoder.yml.gz: decompresses to more than 256 KiB, the limit for "
                                                 "options YAML files"));
  // Plain files past their kind's limit.
  auto plain = files;
  plain.push_back({"decoder.yml", bytes(text.substr(0, 300 << 10))});
  CHECK_THAT(import_error(plain), Catch::Contains("decoder.yml: 307200 bytes, more than 256 KiB"));
}

TEST_CASE("sizes and counts a file cannot hold are said so", "[marian]") {
  std::string spm;
  auto items = fixture_marian_items(fixture_path("marian", "model.tfm"), spm);
  items.push_back(text_item("special:model.yml", fixture_options()));
  // A shape of 2^90 elements.
  auto huge = items;
  huge.push_back({"encoder_huge_W", 0x0404, {1 << 30, 1 << 30, 1 << 30}, std::vector<uint8_t>(16, 0)});
  const std::string e = import_error({{"model.deen.bin", write_bin(huge)}, {"vocab.deen.spm", bytes(spm)}});
  CHECK_THAT(e, Catch::Contains("item encoder_huge_W") && Catch::Contains("is larger than any file"));
  CHECK_THAT(e, !Catch::Contains("18446744073709551615"));
  // A header claiming 70000 items (the file is large enough to list them).
  std::vector<uint8_t> many(16 + 70000 * 40, 0);
  many[0] = 1;
  const uint64_t count = 70000;
  for (int i = 0; i < 8; ++i) many[8 + i] = uint8_t(count >> (8 * i));
  CHECK_THAT(import_error({{"model.deen.bin", many}, {"vocab.deen.spm", bytes(spm)}}),
             Catch::Contains("claims 70000 items, more than any Marian model has (65536)"));
}

TEST_CASE("names from a crafted file are shown without terminal control characters", "[marian]") {
  std::string spm;
  auto items = fixture_marian_items(fixture_path("marian", "model.tfm"), spm);
  items.push_back(text_item("special:model.yml", fixture_options() + "\"\\e]0;owned\\a\\e[2J\": 1\n"));
  items.push_back(f32_item("x\x1b[31mred\xc2\x9b", {1}, {0.f}));
  const std::string e = import_error({{"model.deen.bin", write_bin(items)}, {"vocab.deen.spm", bytes(spm)}});
  CHECK_THAT(e, Catch::Contains("x\\x1B[31mred\\u009B"));
  CHECK(e.find('\x1b') == std::string::npos);
  CHECK(e.find("\xc2\x9b") == std::string::npos);
  // A warning naming an unknown option with escapes.
  auto warned = fixture_as_marian(fixture_options() + "\"\\e]0;owned\\a\": 1\n");
  const auto m = tformer::import_marian(warned);
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Contains("\\x1B]0;owned\\x07"));
}

TEST_CASE("only the files the import needs are read, each with its kind's limit", "[marian]") {
  auto files = fixture_as_marian();
  files.push_back({"README.md", bytes("about")});
  files.push_back({"notes.yml", bytes("x: 1")});
  files.push_back({"huge.npz.part", {}});
  files.push_back({"vocab.deen.spm.sig", {}});
  RecordingFiles source(files, {"README.md", "notes.yml", "huge.npz.part", "vocab.deen.spm.sig"});
  const auto m = tformer::import_marian(source);
  CHECK(m.model_file == "model.deen.bin");
  CHECK(source.reads == std::map<std::string, size_t>{{"model.deen.bin", size_t(1) << 31}, {"vocab.deen.spm", 16u << 20}});
}
