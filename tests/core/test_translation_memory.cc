// The translation memory (tformer/translation_memory.h): an LRU bounded in entries and bytes;
// sentences answered from it are exactly what computing them gives (texts, tokens, scores,
// alignments, HTML), only for the same model and options; its image survives a round trip, and a
// truncated, corrupt or hostile image or entry is refused or recomputed, never trusted blindly.
#include <catch.hpp>

#include <memory>

#include "fixtures.h"
#include "same_translations.h"
#include "memory/byte_io.h"
#include "tformer/catalog.h"
#include "tformer/error.h"
#include "tformer/translation_memory.h"
#include "tformer/translator.h"

using namespace tformer;
using Need = TranslationSession::Need;
using testing::require_same;

namespace {

std::string model_path(const std::string& variant = "tutorial") { return testing::fixture_path(variant, "model.tfm"); }

// A request stepped on the CPU: its results and how many sentences the memory answered.
struct Run {
  std::vector<Translation> results;
  size_t hits = 0;
};

Run run(Translator& t, const std::vector<std::string>& texts, const TranslateOptions& o) {
  auto session = t.begin(texts, o);
  while (session->next() != Need::kDone) session->compute_on_cpu();
  return {session->results(), session->memory_hits()};
}

size_t sentences(const std::vector<Translation>& results) {
  size_t n = 0;
  for (const Translation& t : results) n += t.sentences.size();
  return n;
}

const std::vector<std::string> kTexts = {"Ein Mann fährt Fahrrad. Die Katze schläft.", "Zwei Hunde spielen im Schnee.",
                                         "Die Katze schläft. Ein Mann fährt Fahrrad."};

// Bytes with the checksum an image ends with.
std::string sealed(std::string body) {
  const std::string hex = catalog::sha256_hex(reinterpret_cast<const uint8_t*>(body.data()), body.size());
  for (size_t i = 0; i < 32; ++i) body += char(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return body;
}

// An image with these entries (key, value), its checksum right: what a hostile writer could make.
std::string image_of(const std::vector<std::pair<std::string, std::string>>& entries, uint32_t version = 1,
                     uint64_t claimed = ~uint64_t(0)) {
  ByteWriter w;
  w.raw("TFMEMORY");
  w.u32(version);
  w.u64(claimed == ~uint64_t(0) ? entries.size() : claimed);
  for (const auto& [k, v] : entries) {
    w.string(k);
    w.string(v);
  }
  return sealed(w.take());
}

// The entries of an image save() made.
std::vector<std::pair<std::string, std::string>> entries_of(const std::string& image) {
  const std::string body = image.substr(0, image.size() - 32);  // the reader points into it
  ByteReader r(body);
  r.skip(8);
  r.u32();
  std::vector<std::pair<std::string, std::string>> out(r.u64());
  for (auto& [k, v] : out) {
    k = r.string();
    v = r.string();
  }
  return out;
}

}  // namespace

TEST_CASE("the memory keeps the most recently used entries within its limits", "[memory]") {
  TranslationMemory m({3, 1 << 20});
  m.put("a", "1");
  m.put("b", "2");
  m.put("c", "3");
  CHECK(m.find("a") == "1");  // now the most recent
  m.put("d", "4");            // b goes
  CHECK_FALSE(m.find("b"));
  CHECK(m.find("c") == "3");
  CHECK(m.find("a") == "1");
  CHECK(m.stats().entries == 3);
  CHECK(m.stats().hits == 3);
  CHECK(m.stats().misses == 1);

  TranslationMemory small({100, 1000});
  small.put("x", std::string(2000, 'x'));  // larger than the whole memory: not kept
  CHECK(small.stats().entries == 0);
  for (int i = 0; i < 10; ++i) small.put("k" + std::to_string(i), std::string(300, 'v'));
  CHECK(small.stats().bytes <= 1000);
  CHECK(small.stats().entries == 2);
  CHECK(small.find("k9"));
  CHECK_FALSE(small.find("k0"));

  m.put("a", "replaced");
  CHECK(m.find("a") == "replaced");
  m.clear();
  CHECK(m.stats().entries == 0);
  CHECK(m.stats().bytes == 0);
  CHECK(m.stats().hits == 0);
  CHECK_FALSE(m.find("a"));

  CHECK_THROWS_AS(TranslationMemory({0, 10}), Error);
  CHECK_THROWS_AS(TranslationMemory({10, 0}), Error);
}

TEST_CASE("the memory's image round-trips, and a bad image is refused with a warning", "[memory]") {
  TranslationMemory m;
  m.put("first", "one");
  m.put("second", std::string("t\0wo", 4));
  const std::string image = m.save();

  TranslationMemory back;
  CHECK(back.load(image).empty());
  CHECK(back.stats().entries == 2);
  CHECK(back.find("second") == std::string("t\0wo", 4));
  CHECK(entries_of(image).back().first == "second");  // saved least recently used first

  auto refused = [](const std::string& bad) {
    TranslationMemory fresh;
    fresh.put("kept", "yes");
    const std::string warning = fresh.load(bad);
    CHECK_FALSE(warning.empty());
    CHECK(fresh.stats().entries == 1);  // what it had stays, nothing is added
    return warning;
  };
  CHECK(refused("") == "not a translation memory (0 bytes without its header)");
  CHECK(refused(std::string(1000, '\0')).find("not a translation memory") == 0);
  for (size_t cut = 1; cut < image.size(); cut += 7) refused(image.substr(0, cut));  // truncated anywhere
  std::string flipped = image;
  flipped[20] ^= 1;
  CHECK(refused(flipped).find("checksum") != std::string::npos);
  CHECK(refused(image_of({{"k", "v"}}, 2)).find("version 2") != std::string::npos);
  // Hostile, with a right checksum: a count or a length beyond the bytes there are.
  CHECK(refused(image_of({{"k", "v"}}, 1, uint64_t(1) << 60)).find("more entries") != std::string::npos);
  ByteWriter w;
  w.raw("TFMEMORY");
  w.u32(1);
  w.u64(1);
  w.u32(0xfffffff0u);  // a key of 4 GiB
  w.raw("abcdefgh");
  const std::string long_key = sealed(w.take());
  CHECK(refused(long_key).find("cannot be read") != std::string::npos);
}

TEST_CASE("a sentence translated before is answered from the memory, exactly as computed", "[memory]") {
  Translator plain(model_path());
  Translator t(model_path());
  auto memory = std::make_shared<TranslationMemory>();
  t.use_memory(memory);

  TranslateOptions o = testing::plain_options();
  SECTION("greedy") {}
  SECTION("beam search with n-best lists and the alignment") {
    o.beam_size = 4;
    o.nbest = 2;
    o.return_alignment = true;
  }
  SECTION("passthrough and the repetition guard") {
    o = TranslateOptions{};
  }
  const Run expected = run(plain, kTexts, o);
  const Run first = run(t, kTexts, o);
  CHECK(first.hits == 0);
  require_same(first.results, expected.results);
  // The third text repeats the first one's sentences in another order and paragraph: five
  // sentences, three of them different.
  const Run second = run(t, kTexts, o);
  CHECK(second.hits == 5);
  CHECK(sentences(expected.results) == 5);
  require_same(second.results, expected.results);
  CHECK(memory->stats().entries == 3);
  // translate() is the same session.
  require_same(t.translate(kTexts, o), expected.results);
}

TEST_CASE("the memory answers HTML as computed, its markup placed again", "[memory]") {
  Translator plain(model_path());
  Translator t(model_path());
  t.use_memory(std::make_shared<TranslationMemory>());
  TranslateOptions o = testing::plain_options();
  o.html = true;
  const std::vector<std::string> html = {"<p>Ein <b>Mann</b> fährt Fahrrad.</p><p>Die Katze <i>schläft</i>.</p>",
                                         "<div>Die Katze <i>schläft</i>.</div>"};
  const Run expected = run(plain, html, o);
  CHECK(run(t, html, o).hits == 0);
  const Run again = run(t, html, o);
  CHECK(again.hits == 3);
  require_same(again.results, expected.results);
}

TEST_CASE("the memory answers only the same model with the same options", "[memory]") {
  auto memory = std::make_shared<TranslationMemory>();
  Translator t(model_path("tutorial"));
  Translator other(model_path("marian"));
  t.use_memory(memory);
  other.use_memory(memory);
  TranslateOptions o = testing::plain_options();
  CHECK(run(t, kTexts, o).hits == 0);
  CHECK(run(other, kTexts, o).hits == 0);
  CHECK(run(other, kTexts, o).hits == 5);
  TranslateOptions beam = o;
  beam.beam_size = 2;
  CHECK(run(t, kTexts, beam).hits == 0);
  TranslateOptions guarded = o;
  guarded.repetition_guard = true;
  CHECK(run(t, kTexts, guarded).hits == 0);
  // Options that only change how the work is split share the entries.
  TranslateOptions batches = o;
  batches.max_batch_tokens = 8;
  CHECK(run(t, kTexts, batches).hits == 5);
  CHECK(memory_fingerprint(o) != memory_fingerprint(beam));
  CHECK(memory_fingerprint(o) == memory_fingerprint(batches));
  // No memory: nothing is answered from one.
  t.use_memory(nullptr);
  CHECK(run(t, kTexts, o).hits == 0);
}

TEST_CASE("an entry that does not answer its sentence is computed again and replaced", "[memory]") {
  Translator plain(model_path());
  const Run expected = run(plain, kTexts, testing::plain_options());
  auto source = std::make_shared<TranslationMemory>();
  Translator t(model_path());
  t.use_memory(source);
  run(t, kTexts, testing::plain_options());

  // The right keys, with values that are not entries, or entries of another sentence.
  auto entries = entries_of(source->save());
  REQUIRE(entries.size() == 3);
  const std::string other_sentence = entries[0].second;
  entries[0].second = "garbage";
  entries[1].second = other_sentence.substr(0, other_sentence.size() / 2);
  entries[2].second = other_sentence;
  auto hostile = std::make_shared<TranslationMemory>();
  CHECK(hostile->load(image_of(entries)).empty());
  t.use_memory(hostile);
  const Run first = run(t, kTexts, testing::plain_options());
  require_same(first.results, expected.results);
  CHECK(first.hits == 0);
  CHECK(run(t, kTexts, testing::plain_options()).hits == 5);
}
