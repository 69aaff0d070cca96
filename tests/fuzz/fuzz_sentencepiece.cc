// libFuzzer harness: SentencePiece models from elsewhere (a .tfm's tokenizer, a Marian vocab.spm)
// through the engine's Tokenizer, which checks them (check_sentencepiece_model) and, where the
// check accepts them, loads them with SentencePiece; encoding and decoding text must then work. The first byte picks
// what the rest is: 0 a whole model; 1 the fixture's model with the rest as its normalizer's
// precompiled_charsmap, 2 as its denormalizer's; 3 a trie of the rest's bytes as units behind a
// well-formed charsmap header, with the rest also as replacement strings. Any input must end in a
// tformer::Error or a working tokenizer, never a crash or a sanitizer report.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/sentencepiece_files.h"
#include "model/model_file.h"
#include "text/tokenizer.h"
#include "tformer/error.h"

namespace {

const std::string& fixture_model() {
  static const std::string spm = [] {
    const tformer::ModelFile f = tformer::ModelFile::from_path(TFORMER_FUZZ_MODEL);
    return f.bytes_of(f.tokenizer().source);
  }();
  return spm;
}

void use(const std::string& model, const std::string& payload) {
  // The Tokenizer checks the model (check_sentencepiece_model) before SentencePiece loads it.
  const tformer::Tokenizer tok(model);
  // Texts that meet the table's rules: fixed ones, and the input's own bytes (SentencePiece
  // replaces malformed UTF-8).
  for (const std::string& text : {std::string("Ein Mann fährt Fahrrad."), std::string("a b\tc\xEF\xBC\xA1 \xE2\x80\x8B"),
                                  payload.substr(0, 256)}) {
    const std::vector<int> ids = tok.encode(text);
    tok.decode(ids);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0: use(payload, payload); break;
      case 1: use(tformer::testing::with_charsmap(fixture_model(), payload, 3), payload); break;
      case 2: use(tformer::testing::with_charsmap(fixture_model(), payload, 5), payload); break;
      case 3: {
        // Units from the input (whole blocks of 256), the strings after them.
        std::vector<uint32_t> units(std::max<size_t>(256, (payload.size() / 4 + 255) / 256 * 256),
                                    tformer::testing::kNoMatch);
        for (size_t i = 0; i + 4 <= payload.size() && i / 4 < units.size(); i += 4) {
          units[i / 4] = uint32_t(uint8_t(payload[i])) | uint32_t(uint8_t(payload[i + 1])) << 8 |
                         uint32_t(uint8_t(payload[i + 2])) << 16 | uint32_t(uint8_t(payload[i + 3])) << 24;
        }
        const std::string charsmap = tformer::testing::charsmap_bytes(units, payload + std::string(1, '\0'));
        use(tformer::testing::with_charsmap(fixture_model(), charsmap, 3), payload);
        break;
      }
    }
  } catch (const tformer::Error&) {
    // A clear refusal is the expected outcome for most inputs.
  }
  return 0;
}
