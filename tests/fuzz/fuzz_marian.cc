// libFuzzer harness: the Marian importer (core/src/marian) on arbitrary bytes. The first byte picks
// what the rest is: a model .bin, a model .npz, a .gz copy of the model, options YAML (as the
// model's special:model.yml, as decoder.yml and as a vocabulary table), a lexical shortlist, the
// SentencePiece vocabulary, or an OPUS-MT vocabulary table, next to a small model (d 8, one layer
// each side; its parameters made up, its vocabulary the fixture's, tests/fixtures/marian) written
// as a Marian .bin once: small, so that an import takes well under a millisecond. Any input must
// end in a tformer::Error or a .tfm the engine's reader accepts, never a crash, a sanitizer
// report, a hang or a huge allocation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/marian_files.h"
#include "marian/yaml.h"
#include "model/model_file.h"
#include "tformer/error.h"
#include "tformer/marian.h"

namespace {

struct Fixture {
  std::vector<tformer::testing::BinItem> items;  // without special:model.yml
  std::vector<uint8_t> spm, model;               // the SentencePiece model; the whole .bin
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    const tformer::ModelFile f = tformer::ModelFile::from_path(TFORMER_FUZZ_MODEL);
    const std::string spm = f.bytes_of(f.tokenizer().source);
    x.spm.assign(spm.begin(), spm.end());
    x.items = tformer::testing::tiny_marian_items(256);
    auto all = x.items;
    all.push_back(tformer::testing::text_item("special:model.yml", tformer::testing::tiny_options(256)));
    x.model = tformer::testing::write_bin(all);
    return x;
  }();
  return f;
}

void import(const std::vector<tformer::MarianFile>& files) {
  const tformer::MarianImport m = tformer::import_marian(files);
  // What the importer writes, the engine's reader must accept.
  const tformer::ModelFile f = tformer::ModelFile::from_bytes(m.tfm);
  if (f.tensors().empty() || m.summary_json.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Fixture& fx = fixture();
  const std::vector<uint8_t> payload(data + 1, data + size);
  const std::string text(payload.begin(), payload.end());
  const tformer::MarianFile vocab{"vocab.deen.spm", fx.spm};
  try {
    switch (data[0] % 8) {
      case 0: import({{"model.deen.bin", payload}, vocab}); break;
      case 1: import({{"model.deen.npz", payload}, vocab}); break;
      case 2: import({{"model.deen.bin.gz", payload}, vocab}); break;
      case 3: {
        auto items = fx.items;
        items.push_back(tformer::testing::text_item("special:model.yml", text));
        import({{"model.deen.bin", tformer::testing::write_bin(items)}, vocab});
        break;
      }
      case 4:
        try {
          tformer::marian::parse_options(text, "decoder.yml");
        } catch (const tformer::Error&) {
        }
        try {
          tformer::marian::read_vocab_yml(text, "vocab.yml");
        } catch (const tformer::Error&) {
        }
        import({{"model.deen.bin", fx.model}, vocab, {"decoder.yml", payload}});
        break;
      case 5: import({{"model.deen.bin", fx.model}, vocab, {"lex.50.50.deen.s2t.bin", payload}}); break;
      case 6: import({{"model.deen.bin", fx.model}, {"vocab.deen.spm", payload}}); break;
      case 7:
        import({{"model.deen.bin", fx.model}, {"source.spm", fx.spm}, {"target.spm", fx.spm},
                {"opus.spm32k-spm32k.vocab.yml", payload}});
        break;
    }
  } catch (const tformer::Error&) {
    // A clear refusal is the expected outcome for most inputs.
  }
  return 0;
}
