// SentencePiece models from elsewhere are checked before SentencePiece loads them
// (text/sentencepiece_check.h): a normalisation table built here by hand does what its rule says
// through SentencePiece itself, and each way of pointing outside the table is refused with a
// message, in the .tfm path (Tokenizer) and in the Marian path (the importer's vocab.spm).
#include <catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "fixtures.h"
#include "marian_files.h"
#include "model/model_file.h"
#include "sentencepiece_files.h"
#include "tformer/marian.h"
#include "text/sentencepiece_check.h"
#include "text/tokenizer.h"

using namespace tformer::testing;
using tformer::Error;

namespace {

std::string fixture_spm() {
  const tformer::ModelFile f = tformer::ModelFile::from_path(fixture_path("marian", "model.tfm"));
  return f.bytes_of(f.tokenizer().source);
}

std::string check_error(const std::string& model) {
  try {
    tformer::check_sentencepiece_model(model, "x.spm");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string tokenizer_error(const std::string& model) {
  try {
    tformer::Tokenizer tok(model);
    tok.encode("a b a");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The fixture's model with a normalizer that maps "a" through `units`, strings "b\0".
std::string with_trie(const std::vector<uint32_t>& units, const std::string& strings = std::string("b\0", 2)) {
  return with_charsmap(fixture_spm(), charsmap_bytes(units, strings));
}

}  // namespace

TEST_CASE("a normalisation table built by hand is applied by SentencePiece", "[sentencepiece]") {
  const std::string plain = fixture_spm();
  const std::string a_to_b = with_trie(one_rule_trie('a', 0));
  CHECK(check_error(plain) == "no error");
  CHECK(check_error(a_to_b) == "no error");
  // The rule's effect, through SentencePiece: "a" is read as "b" (the test's model of the table's
  // layout is SentencePiece's).
  const tformer::Tokenizer original(plain), mapped(a_to_b);
  CHECK(mapped.encode("a") == original.encode("b"));
  CHECK(mapped.decode(mapped.encode("a b")) == "b b");
  CHECK(original.decode(original.encode("a b")) == "a b");
  // The denormalizer's table is checked too.
  CHECK(check_error(with_charsmap(plain, charsmap_bytes(one_rule_trie('a', 0), std::string("b\0", 2)), 5)) == "no error");
}

TEST_CASE("a normalisation table that points outside itself is refused", "[sentencepiece]") {
  auto refused = [](const std::string& model, const std::string& fragment) {
    INFO(fragment);
    const std::string e = check_error(model);
    CHECK_THAT(e, Catch::Contains("x.spm") && Catch::Contains("precompiled_charsmap") && Catch::Contains(fragment));
    // The engine's tokenizer refuses it too (a crash without the check).
    CHECK_THAT(tokenizer_error(model), Catch::Contains("precompiled_charsmap") && Catch::Contains(fragment));
  };
  const std::string plain = fixture_spm();
  // A replacement far past the strings: SentencePiece would read (and print) memory there.
  refused(with_trie(one_rule_trie('a', 0x7FFFFF00)), "a replacement points outside its strings");
  // A replacement with no NUL after it.
  refused(with_trie(one_rule_trie('a', 0), "b"), "a replacement points outside its strings");
  // A transition to a state beyond the trie.
  auto far = one_rule_trie('a', 0);
  far[256 ^ 'a'] = node_unit('a', (256u ^ 'a') ^ 0x100000u, true);
  refused(with_trie(far), "outside the trie");
  // The root's state beyond the trie.
  auto root = one_rule_trie('a', 0);
  root[0] = node_unit(0, 4096, false);
  refused(with_trie(root), "outside the trie");
  // A cycle: "a" leads back to the root's state, a match each time.
  auto cycle = one_rule_trie('a', 0);
  cycle[256 ^ 'a'] = node_unit('a', (256u ^ 'a') ^ 256u, true);
  refused(with_trie(cycle), "a cycle");
  // More matches along one input than the normalizer's 32 results.
  CHECK(check_error(with_charsmap(plain, charsmap_bytes(chain_trie('a', 32), std::string("b\0", 2)))) == "no error");
  refused(with_charsmap(plain, charsmap_bytes(chain_trie('a', 33), std::string("b\0", 2))), "more than 32 matches");
  // Sizes: the trie claims more than the table holds, or not whole blocks.
  std::string cut = charsmap_bytes(one_rule_trie('a', 0), std::string("b\0", 2));
  cut.resize(cut.size() - 10);
  refused(with_charsmap(plain, cut), "its trie claims");
  auto partial = one_rule_trie('a', 0);
  partial.resize(700);
  refused(with_trie(partial), "not whole blocks");
  refused(with_charsmap(plain, std::string("\x01\x00", 2)), "it has 2 bytes");
  // In the denormalizer too.
  refused(with_charsmap(plain, charsmap_bytes(one_rule_trie('a', 0x7FFFFF00), std::string("b\0", 2)), 5),
          "a replacement points outside its strings");
}

TEST_CASE("a model proto that is not well-formed is refused by name", "[sentencepiece]") {
  const std::string plain = fixture_spm();
  CHECK_THAT(check_error(plain.substr(0, plain.size() - 1)), Catch::Contains("x.spm: not a SentencePiece model"));
  CHECK_THAT(check_error(std::string("\x1a\xff\xff\xff\xff\x0f", 6)), Catch::Contains("runs past the end"));
  CHECK_THAT(check_error(std::string("\x0b\x00", 2)), Catch::Contains("wire type 3"));
  CHECK_THAT(check_error(std::string(17 << 20, '\0')), Catch::Contains("more than 16 MiB"));
}

TEST_CASE("a piece holding a NUL byte is refused before SentencePiece builds its tries", "[sentencepiece]") {
  // The fuzzer's find: a model whose pieces include "<p\0" made darts-clone throw from inside
  // SentencePiece's loader (uncaught: the process ended).
  std::string crafted = fixture_spm();
  const std::string piece = field(1, std::string("<p\0", 3));  // SentencePiece.piece
  crafted += field(1, piece);                                    // ModelProto.pieces
  CHECK_THAT(check_error(crafted), Catch::Contains("x.spm: not a SentencePiece model (piece 256 holds a NUL byte)"));
  CHECK_THAT(tokenizer_error(crafted), Catch::Contains("embedded SentencePiece model: not a SentencePiece model (piece 256"));
}

TEST_CASE("the shipped models' vocabularies pass the check", "[sentencepiece]") {
  for (const char* variant : {"marian", "tutorial", "marian-int8"}) {
    const tformer::ModelFile f = tformer::ModelFile::from_path(fixture_path(variant, "model.tfm"));
    CHECK(check_error(f.bytes_of(f.tokenizer().source)) == "no error");
  }
#ifdef TFORMER_SOURCE_DIR
  // A real NFKC table (models/tiny.deen's vocabulary: about 177 KB of trie).
  const std::string shipped = std::string(TFORMER_SOURCE_DIR) + "/models/tiny.deen/model.tfm";
  if (std::ifstream(shipped)) {
    const tformer::ModelFile f = tformer::ModelFile::from_path(shipped);
    CHECK(check_error(f.bytes_of(f.tokenizer().source)) == "no error");
  }
#endif
}

TEST_CASE("a crafted vocabulary is refused in a .tfm and in a Marian folder", "[sentencepiece]") {
  const std::string crafted = with_trie(one_rule_trie('a', 0x7FFFFF00));
  // The importer refuses the folder (before the fix it wrote a .tfm that crashed the engine).
  auto files = fixture_as_marian();
  files[1].bytes.assign(crafted.begin(), crafted.end());
  try {
    tformer::import_marian(files);
    FAIL("the crafted vocabulary was imported");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("vocab.deen.spm") && Catch::Contains("precompiled_charsmap"));
  }
}
