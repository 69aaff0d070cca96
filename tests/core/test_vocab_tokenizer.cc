// The vocabulary-table tokenizer (tokenizer type sentencepiece_vocab, docs/FORMAT.md): Marian
// .yml vocabularies as OPUS-MT ships them, where a table, not SentencePiece, gives the ids.
#include <catch.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model_file.h"
#include "text/tokenizer.h"
#include "tformer/error.h"
#include "tformer/translator.h"

using namespace tformer;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string fixture_model() { return std::string(TFORMER_FIXTURES_DIR) + "/marian/model.tfm"; }

// The SentencePiece model of the Marian-convention fixture (256 pieces, </s> = 0, <unk> = 1).
std::string fixture_spm() {
  const ModelFile f = ModelFile::from_bytes(read_bytes(fixture_model()));
  return f.bytes_of(f.tokenizer().source);
}

std::string table_bytes(const std::vector<std::string>& pieces) {
  std::string out;
  for (const std::string& p : pieces) out += p + '\0';
  return out;
}

// The fixture's pieces in reverse id order, except </s> and <unk> (ids 0 and 1), minus `drop`.
std::vector<std::string> reversed_table(const Tokenizer& sp, const std::vector<std::string>& drop) {
  std::vector<std::string> pieces = {"</s>", "<unk>"};
  for (int id = sp.vocab_size() - 1; id >= 2; --id) {
    const std::string p = sp.piece(id);
    if (std::find(drop.begin(), drop.end(), p) == drop.end()) pieces.push_back(p);
  }
  return pieces;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A copy of a .tfm file with its header edited and, optionally, one u8 tensor appended.
std::vector<uint8_t> edit_tfm(const std::vector<uint8_t>& file, const std::function<void(nlohmann::json&)>& edit,
                              const std::string& add_name = "", const std::string& add_bytes = "") {
  auto u64 = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | file[at + size_t(i)];
    return v;
  };
  const uint64_t hlen = u64(16);
  const uint64_t data_start = (24 + hlen + 63) / 64 * 64;
  nlohmann::json header = nlohmann::json::parse(file.begin() + 24, file.begin() + 24 + long(hlen));
  std::vector<uint8_t> data(file.begin() + long(data_start), file.end());
  if (!add_name.empty()) {
    data.resize((data.size() + 63) / 64 * 64, 0);
    header["tensors"].push_back({{"name", add_name}, {"dtype", "u8"}, {"shape", {add_bytes.size()}},
                                 {"offset", data.size()}, {"nbytes", add_bytes.size()}});
    data.insert(data.end(), add_bytes.begin(), add_bytes.end());
  }
  edit(header);
  const std::string h = header.dump();
  std::vector<uint8_t> out(file.begin(), file.begin() + 16);
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(uint64_t(h.size()) >> (8 * i)));
  out.insert(out.end(), h.begin(), h.end());
  out.resize((out.size() + 63) / 64 * 64, 0);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace

TEST_CASE("a vocabulary table gives the ids of SentencePiece's pieces, <unk> for pieces it lacks", "[text]") {
  const std::string spm = fixture_spm();
  const Tokenizer sp(spm);
  const std::string text = "Zwei Hunde spielen im Schnee.";
  std::vector<std::string> pieces;
  for (int id : sp.encode(text)) pieces.push_back(sp.piece(id));
  REQUIRE(pieces.size() > 3);

  const std::vector<std::string> drop = {pieces[1]};  // one piece of the text is missing from the table
  const std::vector<std::string> table = reversed_table(sp, drop);
  const Tokenizer tok(spm, table_bytes(table));
  CHECK(tok.has_vocab_table());
  CHECK(tok.vocab_size() == int(table.size()));
  CHECK(tok.vocab_size() == sp.vocab_size() - 1);

  const std::vector<int> ids = tok.encode(text);
  REQUIRE(ids.size() == pieces.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (pieces[i] == drop[0]) {
      CHECK(ids[i] == 1);  // <unk>
    } else {
      CHECK(table[size_t(ids[i])] == pieces[i]);
      CHECK(tok.piece(ids[i]) == pieces[i]);
    }
  }
  // Decoding maps ids back to pieces and joins them as SentencePiece does.
  std::vector<int> known;
  std::vector<int> sp_ids;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 1) {
      known.push_back(ids[i]);
      sp_ids.push_back(sp.encode(text)[i]);
    }
  CHECK(tok.decode(known) == sp.decode(sp_ids));
  CHECK(tok.decode({}) == "");
}

TEST_CASE("tokenizers give the bytes each token stands for, of the input and of the decoded text", "[text]") {
  const std::string spm = fixture_spm();
  const Tokenizer sp(spm);
  const Tokenizer table(spm, table_bytes(reversed_table(sp, {})));
  const std::string mark = "\xE2\x96\x81";
  for (const Tokenizer* tok : {&sp, &table}) {
    CAPTURE(tok->has_vocab_table());
    // Extra spaces are dropped with the token after them; the spaces at either end stand for no token.
    const std::string text = "  Zwei  Hunde spielen im Schnee. ";
    const Tokenizer::Encoded e = tok->encode_annotated(text);
    CHECK(e.ids == tok->encode(text));
    REQUIRE(e.tokens.size() == e.ids.size());
    std::string spelled;
    for (size_t i = 0; i < e.tokens.size(); ++i) {
      const ByteRange r = e.tokens[i];
      REQUIRE(r.begin <= r.end);
      REQUIRE(r.end <= text.size());
      if (i > 0) CHECK(r.begin == e.tokens[i - 1].end);  // one after the other
      // Each token is its piece: the piece's "▁" stands for the spaces before it.
      std::string piece = tok->piece(e.ids[i]);
      for (size_t k; (k = piece.find(mark)) != std::string::npos;) piece.replace(k, mark.size(), " ");
      std::string bytes = text.substr(r.begin, r.size());
      if (i == 0) bytes = " " + bytes;  // SentencePiece's dummy prefix
      while (bytes.size() > 1 && bytes[0] == ' ' && bytes[1] == ' ') bytes.erase(0, 1);
      CHECK(bytes == piece);
    }
    CHECK(e.tokens.front().begin == 2);
    CHECK(e.tokens.back().end == text.size() - 1);

    // Decoding: the text decode() gives, each token's bytes in it, one after the other from 0.
    const AnnotatedSentence d = tok->decode_annotated(e.ids);
    CHECK(d.text == tok->decode(e.ids));
    CHECK(d.text == "Zwei Hunde spielen im Schnee.");
    REQUIRE(d.tokens.size() == e.ids.size());
    size_t at = 0;
    for (const ByteRange& r : d.tokens) {
      CHECK(r.begin == at);
      at = r.end;
    }
    CHECK(at == d.text.size());
    CHECK(tok->decode_annotated({}).text.empty());
    CHECK(tok->encode_annotated("").ids.empty());
    CHECK_THROWS_AS(tok->decode_annotated({tok->vocab_size()}), Error);
    CHECK_THROWS_AS(tok->decode_annotated({-1}), Error);
  }
}

TEST_CASE("vocabulary tables: malformed ones and out-of-range ids are clear errors", "[text]") {
  const std::string spm = fixture_spm();
  CHECK_THAT(error_of([&] { Tokenizer t(spm, std::string("</s>\0<unk>", 10)); }),
             Catch::Contains("does not end with a NUL byte"));
  CHECK_THAT(error_of([&] { Tokenizer t(spm, std::string("\0<unk>\0", 7)); }), Catch::Contains("entry 0 is empty"));
  CHECK_THAT(error_of([&] { Tokenizer t(spm, table_bytes({"</s>", "a", "a", "<unk>"})); }),
             Catch::Contains("'a' occurs twice"));
  CHECK_THAT(error_of([&] { Tokenizer t(spm, table_bytes({"</s>", "a"})); }), Catch::Contains("has no <unk> entry"));
  const Tokenizer tok(spm, table_bytes({"</s>", "<unk>", "\xE2\x96\x81" "a"}));
  CHECK(tok.vocab_size() == 3);
  CHECK(tok.piece(7).empty());
  CHECK_THAT(error_of([&] { tok.decode({2, 3}); }), Catch::Contains("token id 3 is outside the vocabulary of 3 pieces"));
  CHECK_THAT(error_of([&] { Tokenizer(spm).decode({-1}); }), Catch::Contains("token id -1 is outside"));
}

TEST_CASE("model files: tokenizer type sentencepiece_vocab and its tables", "[text]") {
  const std::vector<uint8_t> file = read_bytes(fixture_model());
  const Tokenizer sp(fixture_spm());
  const std::string table = table_bytes(reversed_table(sp, {}));

  // A joint table named once: target_vocab defaults to source_vocab; the translator uses it.
  const auto good = edit_tfm(file, [](nlohmann::json& h) {
    h["tokenizer"]["type"] = "sentencepiece_vocab";
    h["tokenizer"]["source_vocab"] = "tokenizer.source_vocab";
  }, "tokenizer.source_vocab", table);
  const ModelFile f = ModelFile::from_bytes(good);
  CHECK(f.tokenizer().type == "sentencepiece_vocab");
  CHECK(f.tokenizer().target_vocab == "tokenizer.source_vocab");
  Translator translator(good.data(), good.size());
  const auto out = translator.translate({"Ein Mann f\xC3\xA4hrt Fahrrad."});
  REQUIRE(out.size() == 1);
  const auto& s = out[0].sentences.at(0);
  REQUIRE(s.source_tokens.size() >= 2);
  CHECK(s.source_tokens.back() == 0);  // </s>
  CHECK(s.source_pieces.front() == sp.piece(sp.encode("Ein")[0]));
  // The ids are the reversed table's, not SentencePiece's.
  CHECK(s.source_tokens.front() == sp.vocab_size() + 1 - sp.encode("Ein")[0]);

  CHECK_THAT(error_of([&] {
               ModelFile::from_bytes(edit_tfm(file, [](nlohmann::json& h) { h["tokenizer"]["type"] = "sentencepiece_vocab"; }));
             }),
             Catch::Contains("needs 'source_vocab'"));
  CHECK_THAT(error_of([&] {
               ModelFile::from_bytes(edit_tfm(file, [](nlohmann::json& h) {
                 h["tokenizer"]["source_vocab"] = "tokenizer.source_vocab";
               }, "tokenizer.source_vocab", table));
             }),
             Catch::Contains("need type sentencepiece_vocab"));
  CHECK_THAT(error_of([&] {
               ModelFile::from_bytes(edit_tfm(file, [](nlohmann::json& h) {
                 h["tokenizer"]["type"] = "sentencepiece_vocab";
                 h["tokenizer"]["source_vocab"] = "tokenizer.nowhere";
               }));
             }),
             Catch::Contains("tokenizer tensor 'tokenizer.nowhere' is missing"));
  CHECK_THAT(error_of([&] { ModelFile::from_bytes(edit_tfm(file, [](nlohmann::json& h) { h["tokenizer"]["type"] = "bpe"; })); }),
             Catch::Contains("tokenizer type 'bpe' is not supported"));
  // A table larger than the model's vocabulary.
  const std::string big = table + std::string("\xE2\x96\x81zzz\0", 7);
  CHECK_THAT(error_of([&] {
               const auto bytes = edit_tfm(file, [](nlohmann::json& h) {
                 h["tokenizer"]["type"] = "sentencepiece_vocab";
                 h["tokenizer"]["source_vocab"] = "tokenizer.source_vocab";
               }, "tokenizer.source_vocab", big);
               Translator t(bytes.data(), bytes.size());
             }),
             Catch::Contains("vocabulary table has 257 pieces but the config says vocab_size 256"));
}
