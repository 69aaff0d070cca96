// libFuzzer harness: the Marian importer (core/src/marian) on arbitrary bytes. The first byte picks
// what the rest is: a model .bin, a model .npz, a .gz copy of the model, options YAML (as the
// model's special:model.yml, as decoder.yml and as a vocabulary table), a lexical shortlist, the
// SentencePiece vocabulary, or an OPUS-MT vocabulary table, next to a small model (d 8, one layer
// each side; its parameters made up, its vocabulary the fixture's, tests/fixtures/marian) written
// as a Marian .bin once: small, so that an import takes a few milliseconds. Any input must end in
// a tformer::Error or a .tfm the engine's reader accepts, never a crash, a sanitizer report, a
// hang or a huge allocation. A file that the importer reads after the whole model (a shortlist,
// a vocabulary) is first given to the reader the importer uses, with the same arguments: what
// that reader refuses, the import refuses at that point too, so only what it accepts is imported.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/marian_files.h"
#include "decoding/shortlist.h"
#include "marian/yaml.h"
#include "model/model_file.h"
#include "text/sentencepiece_check.h"
#include "tformer/error.h"
#include "tformer/marian.h"

namespace {

constexpr int kVocab = 256;  // the fixture's SentencePiece model's pieces

struct Fixture {
  // The parameters, then special:model.yml (replaced by each input that is options).
  std::vector<tformer::testing::BinItem> items;
  std::vector<uint8_t> spm, model;  // the SentencePiece model; the whole .bin
};

Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    const tformer::ModelFile f = tformer::ModelFile::from_path(TFORMER_FUZZ_MODEL);
    const std::string spm = f.bytes_of(f.tokenizer().source);
    x.spm.assign(spm.begin(), spm.end());
    x.items = tformer::testing::tiny_marian_items(kVocab);
    x.items.push_back(tformer::testing::text_item("special:model.yml", tformer::testing::tiny_options(kVocab)));
    x.model = tformer::testing::write_bin(x.items);
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
  Fixture& fx = fixture();
  const std::vector<uint8_t> payload(data + 1, data + size);
  const std::string text(payload.begin(), payload.end());
  const tformer::MarianFile vocab{"vocab.deen.spm", fx.spm};
  try {
    switch (data[0] % 8) {
      case 0: import({{"model.deen.bin", payload}, vocab}); break;
      case 1: import({{"model.deen.npz", payload}, vocab}); break;
      case 2: import({{"model.deen.bin.gz", payload}, vocab}); break;
      case 3:
        fx.items.back() = tformer::testing::text_item("special:model.yml", text);
        import({{"model.deen.bin", tformer::testing::write_bin(fx.items)}, vocab});
        break;
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
      case 5:
        // The import passes over a shortlist that is not binary (a warning) and checks the rest
        // against the vocabularies' sizes, one SentencePiece model for both sides.
        if (!tformer::LexicalShortlist::is_binary(payload.data(), payload.size())) break;
        (void)tformer::LexicalShortlist(payload.data(), payload.size(), kVocab, kVocab, true);
        import({{"model.deen.bin", fx.model}, vocab, {"lex.50.50.deen.s2t.bin", payload}});
        break;
      case 6:
        tformer::check_sentencepiece_model(text, "vocab.deen.spm");
        import({{"model.deen.bin", fx.model}, {"vocab.deen.spm", payload}});
        break;
      case 7:
        tformer::marian::read_vocab_yml(text, "opus.spm32k-spm32k.vocab.yml");
        import({{"model.deen.bin", fx.model}, {"source.spm", fx.spm}, {"target.spm", fx.spm},
                {"opus.spm32k-spm32k.vocab.yml", payload}});
        break;
    }
  } catch (const tformer::Error&) {
    // A clear refusal is the expected outcome for most inputs.
  }
  return 0;
}
