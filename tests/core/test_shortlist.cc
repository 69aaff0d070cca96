// The lexical shortlist (core/src/decoding/shortlist.h): the Marian binary file is read and
// checked, a sentence's shortlisted words follow Marian's rules, and decoding with it gives the
// PyTorch reference's tokens (golden data: tests/fixtures/shortlist/, written by
// models/tformer/fixtures.py make_shortlist_fixture, which applies models/tformer/shortlist.py).
#include <catch.hpp>

#include <cstring>

#include "decoding/shortlist.h"
#include "fixtures.h"
#include "tformer/error.h"
#include "tformer/translator.h"

using namespace tformer;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

const json& golden() {
  static const json g = json::parse(testing::read_file(testing::fixture_path("shortlist", "golden.json")));
  return g;
}

std::vector<uint8_t> lex() { return testing::read_file(testing::fixture_path("shortlist", "lex.bin")); }

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, &b[at], 8);
  return v;
}

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(&b[at], &v, 8); }

// A valid checksum again, for tests that change the file on purpose and then test a later check.
void reseal(std::vector<uint8_t>& b) { put_u64(b, 8, LexicalShortlist::checksum(b.data(), b.size())); }

// The source vocabulary the file was written for: its offsets count - 1.
int vocab_of(const std::vector<uint8_t>& b) { return int(u64_at(b, 32) - 1); }

LexicalShortlist read(const std::vector<uint8_t>& b, int source_vocab = -1, int target_vocab = -1) {
  const int v = vocab_of(lex());
  // Two vocabularies when their sizes differ (one shared vocabulary has one size).
  const int source = source_vocab < 0 ? v : source_vocab, target = target_vocab < 0 ? v : target_vocab;
  return LexicalShortlist(b.data(), b.size(), source, target, source == target);
}

}  // namespace

TEST_CASE("shortlist: the words of each sentence are the reference's", "[shortlist]") {
  const LexicalShortlist s = read(lex());
  CHECK(s.first_num() == golden()["first_num"].get<uint64_t>());
  CHECK(s.best_num() == golden()["best_num"].get<uint64_t>());
  for (const auto& [variant, m] : golden()["models"].items())
    for (const json& sentence : m["sentences"]) {
      const auto ids = sentence["source_ids"].get<std::vector<int>>();
      const auto words = s.words(ids.data(), ids.size());
      CHECK(words == sentence["words"].get<std::vector<int>>());
      CHECK(words.size() % 8 == 0);
    }
}

TEST_CASE("shortlist: bad files are refused with a message", "[shortlist]") {
  const std::vector<uint8_t> good = lex();
  auto refused = [](const std::vector<uint8_t>& b, const std::string& what, int source_vocab = -1, int target_vocab = -1) {
    CHECK_THROWS_WITH(read(b, source_vocab, target_vocab), Contains("lexical shortlist") && Contains(what));
  };
  refused({}, "shorter than its 48-byte header");
  refused({good.begin(), good.begin() + 47}, "shorter than its 48-byte header");
  for (size_t cut : {size_t(48), good.size() / 2, good.size() - 4, good.size() - 1})
    refused({good.begin(), good.begin() + long(cut)}, "truncated or corrupted");
  std::vector<uint8_t> b = good;
  b[0] ^= 1;
  refused(b, "magic");
  b = good;
  b[b.size() - 8] ^= 0x10;  // a target id
  refused(b, "checksum mismatch");
  refused(good, "source vocabulary has 5", 5);
  refused(good, "outside the model's target vocabulary", -1, 3);
  b = good;  // offsets that decrease
  const size_t first_offset = 48;
  put_u64(b, first_offset + 8, u64_at(b, 40) + 1);
  reseal(b);
  refused(b, "offsets");
  b = good;  // a list id past the vocabulary, with a valid checksum
  const uint32_t big = 1u << 30;
  std::memcpy(&b[b.size() - 4], &big, 4);
  reseal(b);
  refused(b, "outside the model's target vocabulary");
  // A source id outside the vocabulary at translation time: an error, not a read out of bounds.
  const LexicalShortlist s = read(good);
  const int bad[] = {vocab_of(good)};
  CHECK_THROWS_WITH(s.words(bad, 1), Contains("outside the source vocabulary"));
}

TEST_CASE("shortlist: decoding with it gives the reference's tokens", "[shortlist]") {
  for (const auto& [variant, m] : golden()["models"].items()) {
    INFO(variant);
    const double tol = testing::tolerance(variant);
    Translator translator(testing::fixture_path("shortlist", m["file"].get<std::string>()));
    std::vector<std::string> texts;
    for (const json& sentence : m["sentences"]) texts.push_back(sentence["text"]);
    TranslateOptions greedy = testing::plain_options();
    // One request per sentence and one batch of all: the same tokens (the shortlist is per sentence).
    const std::vector<Translation> batched = translator.translate(texts, greedy);
    TranslateOptions beam = testing::plain_options();
    beam.beam_size = 4;
    beam.nbest = 4;
    for (size_t i = 0; i < texts.size(); ++i) {
      const json& sentence = m["sentences"][i];
      INFO(sentence["text"].get<std::string>());
      const Translation alone = translator.translate({texts[i]}, greedy).at(0);
      REQUIRE(alone.sentences.size() == 1);
      CHECK(alone.sentences[0].source_tokens == sentence["source_ids"].get<std::vector<int>>());
      const auto expected = sentence["greedy"]["tokens"].get<std::vector<int>>();
      CHECK(alone.best(0).tokens == expected);
      CHECK(batched[i].best(0).tokens == expected);
      CHECK(alone.best(0).score ==
            Approx(sentence["greedy"]["raw_score"].get<double>() / double(expected.size())).margin(tol));
      const Translation beams = translator.translate({texts[i]}, beam).at(0);
      const json& hyps = sentence["beam"];
      REQUIRE(beams.sentences[0].hypotheses.size() == hyps.size());
      for (size_t h = 0; h < hyps.size(); ++h) {
        const auto tokens = hyps[h]["tokens"].get<std::vector<int>>();
        CHECK(beams.sentences[0].hypotheses[h].tokens == tokens);
        CHECK(beams.sentences[0].hypotheses[h].score ==
              Approx(hyps[h]["raw_score"].get<double>() / double(tokens.size())).margin(tol));
      }
    }
  }
}

TEST_CASE("shortlist: off, every word is scored again", "[shortlist]") {
  // The model without a shortlist has golden data of its own (tests/fixtures/marian/golden.json).
  const json plain = json::parse(testing::read_file(testing::fixture_path("marian", "golden.json")));
  Translator translator(testing::fixture_path("shortlist", "model.marian.tfm"));
  TranslateOptions off = testing::plain_options();
  off.shortlist = false;
  size_t differ = 0;
  for (size_t i = 0; i < plain["sentences"].size(); ++i) {
    const json& sentence = plain["sentences"][i];
    const auto tokens = translator.translate({sentence["text"].get<std::string>()}, off).at(0).best(0).tokens;
    CHECK(tokens == sentence["greedy"]["tokens"].get<std::vector<int>>());
    differ += golden()["models"]["marian"]["sentences"][i]["greedy"]["tokens"] != sentence["greedy"]["tokens"];
  }
  CHECK(differ > 0);  // else this test would not tell the two apart
}

TEST_CASE("shortlist: a session projects a shortlisted batch on the CPU only", "[shortlist]") {
  Translator translator(testing::fixture_path("shortlist", "model.marian.tfm"));
  auto session = translator.begin({"Die Katze schläft."}, testing::plain_options());
  REQUIRE(session->next() == TranslationSession::Need::kEncode);
  session->compute_on_cpu();
  REQUIRE(session->next() == TranslationSession::Need::kProject);
  CHECK(session->projects_on_cpu_only());
  size_t rows = 0;
  session->hidden(&rows);
  std::vector<float> logits(rows * session->vocab_size(), 0.f);
  CHECK_THROWS_WITH(session->provide_logits(logits.data(), logits.size()),
                    Contains("lexical shortlist") && Contains("compute_on_cpu()"));
  std::vector<float> candidates(rows * (3 + 2 * session->candidates_per_row()), 0.f);
  CHECK_THROWS_WITH(session->provide_candidates(candidates.data(), candidates.size()), Contains("lexical shortlist"));
  // Refused answers leave the request pending: the engine's own answer still completes it.
  for (auto need = TranslationSession::Need::kProject; need != TranslationSession::Need::kDone; need = session->next())
    session->compute_on_cpu();
  const auto expected = golden()["models"]["marian"]["sentences"][2]["greedy"]["tokens"].get<std::vector<int>>();
  CHECK(session->results().at(0).best(0).tokens == expected);

  TranslateOptions off = testing::plain_options();
  off.shortlist = false;
  auto plain = translator.begin({"Die Katze schläft."}, off);
  plain->next();
  plain->compute_on_cpu();
  REQUIRE(plain->next() == TranslationSession::Need::kProject);
  CHECK_FALSE(plain->projects_on_cpu_only());
}
