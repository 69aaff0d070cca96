// libFuzzer harness: the sentence splitter and the SentencePiece tokenizer (both the model's own ids
// and a Marian-style vocabulary table) on arbitrary text, the way the engine feeds them: only
// valid UTF-8 reaches them (the engine refuses the rest first), and every id they give must
// decode again. The first byte picks what to fuzz: text, or a vocabulary table.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "model/model_file.h"
#include "tformer/error.h"
#include "text/sentence_splitter.h"
#include "text/tokenizer.h"
#include "util/utf8.h"

namespace {

std::string fixture_sentencepiece() {
  const char* path = std::getenv("TFORMER_FUZZ_MODEL");
  std::ifstream in(path ? path : TFORMER_FUZZ_MODEL, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  const tformer::ModelFile file = tformer::ModelFile::from_bytes(std::move(bytes));
  return file.bytes_of(file.tokenizer().source);
}

struct Tokenizers {
  std::unique_ptr<tformer::Tokenizer> plain, table;
};

const Tokenizers& tokenizers() {
  static const Tokenizers t = [] {
    Tokenizers t;
    const std::string sp = fixture_sentencepiece();
    t.plain = std::make_unique<tformer::Tokenizer>(sp);
    // A table in the model's own order, with its pieces: ids differ only by where they come from.
    std::string table;
    for (int id = 0; id < t.plain->vocab_size(); ++id) table += t.plain->piece(id) + '\0';
    t.table = std::make_unique<tformer::Tokenizer>(sp, table);
    return t;
  }();
  return t;
}

void round_trip(const tformer::Tokenizer& tok, std::string_view text) {
  const std::vector<int> ids = tok.encode(text);
  for (int id : ids)
    if (id < 0 || id >= tok.vocab_size()) __builtin_trap();
  const std::string back = tok.decode(ids);
  if (tformer::find_invalid_utf8(back) != std::string_view::npos) __builtin_trap();
  for (int id : ids) (void)tok.piece(id);
  (void)tok.piece(-1);
  (void)tok.piece(tok.vocab_size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 4 == 3) {  // a vocabulary table: malformed ones are refused
      const auto pieces = tformer::Tokenizer::parse_vocab_table(input, "fuzzed table");
      if (pieces.empty()) __builtin_trap();
      return 0;
    }
    if (tformer::find_invalid_utf8(input) != std::string_view::npos) return 0;
    for (const tformer::SentenceSpan& s : tformer::split_sentences(input)) {
      if (s.begin > s.end || s.end > input.size()) __builtin_trap();
      const std::string_view sentence = std::string_view(input).substr(s.begin, s.end - s.begin);
      if (tformer::find_invalid_utf8(sentence) != std::string_view::npos) __builtin_trap();
      round_trip(data[0] % 2 ? *tokenizers().table : *tokenizers().plain, sentence);
    }
  } catch (const tformer::Error&) {
  }
  return 0;
}
