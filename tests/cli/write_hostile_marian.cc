// Writes the hostile Marian folders of the CLI test expect_marian_hostile.cmake into OUT_DIR, at
// test time, from the fixture model (tests/fixtures/marian, written as a Marian .bin by
// tests/core/marian_files.h, not by the importer): a FIFO and /dev/zero among the files (unused,
// and as the files the import needs), YAML alias bombs (decoder.yml, special:model.yml, a
// --config file), YAML nested 100000 deep, gzip and .npz decompression bombs, file names with
// terminal escape sequences, a shape beyond any file, a vocabulary past its size limit, and a
// SentencePiece vocabulary whose normalisation table points outside itself.
//   tformer_hostile_marian FIXTURES_DIR OUT_DIR
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "../core/marian_files.h"
#include "../core/sentencepiece_files.h"

namespace fs = std::filesystem;
using namespace tformer::testing;

namespace {

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}
void write(const fs::path& path, const std::string& text) { write(path, std::vector<uint8_t>(text.begin(), text.end())); }

std::string alias_bomb(int depth) {
  std::string y = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= depth; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) y += (k ? ", " : "") + p;
    y += "]\n";
  }
  return y;
}

// gzip of `n` zero bytes, streamed (a few MB for gigabytes).
std::vector<uint8_t> gzip_zeros(uint64_t n) {
  z_stream zs{};
  deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> zeros(1 << 20, 0), out, buf(1 << 16);
  uint64_t left = n;
  int flush = Z_NO_FLUSH;
  do {
    const uInt chunk = uInt(std::min<uint64_t>(left, zeros.size()));
    zs.next_in = zeros.data();
    zs.avail_in = chunk;
    left -= chunk;
    flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    do {
      zs.next_out = buf.data();
      zs.avail_out = uInt(buf.size());
      deflate(&zs, flush);
      out.insert(out.end(), buf.begin(), buf.end() - zs.avail_out);
    } while (zs.avail_out == 0);
  } while (flush != Z_FINISH);
  deflateEnd(&zs);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tformer_hostile_marian FIXTURES_DIR OUT_DIR\n";
    return 2;
  }
  const fs::path out = argv[2];
  fs::remove_all(out);
  std::string spm;
  const std::vector<BinItem> items = fixture_marian_items(std::string(argv[1]) + "/marian/model.tfm", spm);
  auto model = [&](const std::string& extra_options) {
    auto all = items;
    all.push_back(text_item("special:model.yml", fixture_options() + extra_options));
    return write_bin(all);
  };
  const std::vector<uint8_t> bin = model("");
  // A folder: the fixture model and vocabulary, unless `skip` names one of them.
  auto folder = [&](const std::string& name, const std::string& skip = "") {
    const fs::path dir = out / name;
    fs::create_directories(dir);
    if (skip != "model.deen.bin") write(dir / "model.deen.bin", bin);
    if (skip != "vocab.deen.spm") write(dir / "vocab.deen.spm", spm);
    return dir;
  };

  folder("base");
  // FIFOs and /dev/zero: never read when unused; refused by type when needed.
  fs::path d = folder("unused-fifo");
  mkfifo((d / "notes.yml").c_str(), 0600);
  mkfifo((d / "extra.spm").c_str(), 0600);
  d = folder("fifo-vocab", "vocab.deen.spm");
  mkfifo((d / "vocab.deen.spm").c_str(), 0600);
  d = folder("unused-zero");
  fs::create_symlink("/dev/zero", d / "zero.yml");
  fs::create_symlink("/dev/zero", d / "zero.npz.gz");
  d = folder("zero-model", "model.deen.bin");
  fs::create_symlink("/dev/zero", d / "model.deen.bin");
  // Alias bombs: 10^9 nodes in about 700 bytes.
  write(folder("alias-decoder") / "decoder.yml", alias_bomb(9));
  write(folder("alias-model", "model.deen.bin") / "model.deen.bin", model(alias_bomb(9)));
  write(folder("alias-config") / "train.yml", fixture_options() + alias_bomb(9));
  write(folder("deep-yaml") / "decoder.yml", "models: " + std::string(100000, '[') + std::string(100000, ']') + "\n");
  // 64 MiB of YAML in 65 KB.
  std::string yaml = "models: [model.deen.bin]\n";
  while (yaml.size() < (64u << 20)) yaml += "# " + std::string(1000, 'y') + "\n";
  write(folder("yaml-gz") / "decoder.yml.gz", gzip_bytes(std::vector<uint8_t>(yaml.begin(), yaml.end())));
  // A model .gz of 2.5 GiB of zeros (2.4 MB): its trailer declares more than a model may hold.
  write(folder("gz-bomb", "model.deen.bin") / "model.deen.bin.gz", gzip_zeros((uint64_t(5) << 30) / 2));
  // .npz: six entries sharing one deflated body of 64 MiB; three entries claiming 2.4 GB in all.
  std::vector<ZipEntry> shared = {zip_entry("w0.npy", std::vector<uint8_t>(size_t(64) << 20, 0))};
  for (int i = 1; i < 6; ++i) {
    ZipEntry e;
    e.name = "w" + std::to_string(i) + ".npy";
    e.uncompressed = shared[0].uncompressed;
    e.shares = 0;
    shared.push_back(e);
  }
  write(folder("npz-shared", "model.deen.bin") / "model.deen.npz", write_zip(shared));
  std::vector<ZipEntry> many;
  for (int i = 0; i < 3; ++i) many.push_back({"m" + std::to_string(i) + ".npy", std::vector<uint8_t>(800000, 0x55), 800000ull * 1000, 0, false, -1});
  write(folder("npz-total", "model.deen.bin") / "model.deen.npz", write_zip(many));
  // File names with terminal escape sequences (two models: the message lists both).
  d = folder("escape-names", "model.deen.bin");
  write(d / "deen\x1b]0;owned\x07\x1b[2J.bin", bin);
  write(d / "plain.bin", bin);
  // A tensor of 2^90 elements.
  auto huge = items;
  huge.push_back(text_item("special:model.yml", fixture_options()));
  huge.push_back({"encoder_huge_W", 0x0404, {1 << 30, 1 << 30, 1 << 30}, std::vector<uint8_t>(16, 0)});
  write(folder("huge-shape", "model.deen.bin") / "model.deen.bin", write_bin(huge));
  // A vocabulary of 17 MiB (a sparse file: its size alone must refuse it).
  d = folder("big-vocab", "vocab.deen.spm");
  write(d / "vocab.deen.spm", std::vector<uint8_t>());
  fs::resize_file(d / "vocab.deen.spm", uintmax_t(17) << 20);
  // A SentencePiece vocabulary whose normalisation table sends "a" far past its strings.
  const std::string crafted = with_charsmap(spm, charsmap_bytes(one_rule_trie('a', 0x7FFFFF00), std::string("b\0", 2)));
  write(folder("crafted-spm", "vocab.deen.spm") / "vocab.deen.spm", crafted);
  std::cout << "hostile Marian folders in " << out.string() << "\n";
  return 0;
}
