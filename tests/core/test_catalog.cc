// The model catalogue's rules (tformer/catalog.h) on hand-written records: Firefox's version order
// and channel filters, which files make a pair, pivoting through English, the checks of a
// download (FIPS 180-4's sha256 examples, zstd made here with libzstd, bombs) and the composed
// alignment of a pivot translation.
#include <catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tformer/catalog.h"
#include "tformer/pivot.h"

#if !defined(__EMSCRIPTEN__)
#include <zstd.h>  // to make the zstd files the checks read
#endif

namespace cat = tformer::catalog;
using tformer::ErrorCode;

namespace {

std::string hash_of(const std::string& s) { return cat::sha256_hex(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

nlohmann::json record(const std::string& src, const std::string& tgt, const std::string& type, const std::string& version,
                      const std::string& filter = "", const std::string& name = "") {
  const std::string pair = src + tgt;
  const std::string file = !name.empty() ? name
                           : type == "model" ? "model." + pair + ".intgemm.alphas.bin"
                           : type == "lex" ? "lex.50.50." + pair + ".s2t.bin"
                                           : type + "." + pair + ".spm";
  return {{"id", file + version}, {"name", file}, {"sourceLanguage", src}, {"targetLanguage", tgt},
          {"architecture", "tiny"}, {"version", version}, {"fileType", type}, {"filter_expression", filter},
          {"decompressedHash", hash_of(file + version)}, {"decompressedSize", 100},
          {"attachment", {{"hash", hash_of(file + version + ".zst")}, {"size", 40}, {"filename", file + ".zst"},
                          {"location", "main-workspace/translations-models-v2/" + file + version + ".zst"},
                          {"mimetype", "application/zstd"}}}};
}

std::vector<nlohmann::json> pair_records(const std::string& src, const std::string& tgt, const std::string& version,
                                         const std::string& filter = "") {
  return {record(src, tgt, "model", version, filter), record(src, tgt, "vocab", version, filter),
          record(src, tgt, "lex", version, filter)};
}

std::vector<cat::Record> parse(const std::vector<nlohmann::json>& records) {
  return cat::parse_records(nlohmann::json{{"data", records}}.dump());
}

std::string kind_of(const cat::Model& m, const std::string& type) {
  for (const auto& f : m.files)
    if (f.file_type == type) return f.version;
  return "";
}

ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tformer::Error& e) {
    return e.code();
  }
  return ErrorCode::kInternal;
}

}  // namespace

TEST_CASE("catalog: Firefox's version order", "[catalog]") {
  CHECK(cat::compare_versions("1.0", "1.0") == 0);
  CHECK(cat::compare_versions("1.0", "1") == 0);
  CHECK(cat::compare_versions("1.0a1", "1.0") < 0);
  CHECK(cat::compare_versions("1.0a1", "1.0a2") < 0);
  CHECK(cat::compare_versions("1.0a2", "1.0b1") < 0);
  CHECK(cat::compare_versions("1.0b1", "1.0") < 0);
  CHECK(cat::compare_versions("1.0", "1.1a1") < 0);
  CHECK(cat::compare_versions("1.9", "1.10") < 0);
  CHECK(cat::compare_versions("2.0a1", "1.5") > 0);
  CHECK(cat::compare_versions("1.0beta", "1.0") < 0);
  CHECK(cat::compare_versions("1.0a", "1.0a1") < 0);  // Firefox's "<major>.0a" is below every pre-release
  CHECK(cat::compare_versions("1.0+", "1.1pre") == 0);  // "+" is the next number's pre-release
  CHECK(cat::compare_versions("", "0") == 0);
}

TEST_CASE("catalog: filter expressions as channels see them", "[catalog]") {
  using cat::Channel;
  const std::string nightly = "env.channel == 'default' || env.channel == 'nightly'";
  const std::string not_release = "env.channel != 'release'";
  CHECK(cat::visible("", Channel::kRelease));
  CHECK(cat::visible("  ", Channel::kNightly));
  CHECK_FALSE(cat::visible(nightly, Channel::kRelease));
  CHECK_FALSE(cat::visible(nightly, Channel::kBeta));
  CHECK(cat::visible(nightly, Channel::kNightly));
  CHECK_FALSE(cat::visible(not_release, Channel::kRelease));
  CHECK(cat::visible(not_release, Channel::kBeta));
  CHECK(cat::visible(not_release, Channel::kNightly));
  CHECK(cat::visible("env.channel in ['beta', \"nightly\"]", Channel::kBeta));
  CHECK_FALSE(cat::visible("env.channel in ['beta', 'nightly']", Channel::kRelease));
  CHECK_FALSE(cat::visible("env.appinfo.OS == 'Android'", Channel::kRelease));
  CHECK(cat::visible("env.appinfo.OS != 'Android'", Channel::kRelease));
  CHECK(cat::visible("!(env.appinfo.OS == 'Android') && (env.channel == 'release' || false)", Channel::kRelease));
  CHECK_FALSE(cat::visible("env.unknownThing == 'x'", Channel::kRelease));
  // What this cannot read hides the record: transforms, arithmetic, broken syntax, deep nesting.
  CHECK_FALSE(cat::visible("env.version|versionCompare('120') >= 0", Channel::kRelease));
  CHECK_FALSE(cat::visible("env.channel == ", Channel::kRelease));
  CHECK_FALSE(cat::visible("'release' == env.channel)", Channel::kRelease));
  CHECK_FALSE(cat::visible(std::string(5000, '('), Channel::kRelease));
  CHECK_FALSE(cat::visible(std::string(100, '(') + "true" + std::string(100, ')'), Channel::kRelease));
  CHECK(cat::channel_from_name("beta") == Channel::kBeta);
  CHECK(code_of([] { cat::channel_from_name("aurora"); }) == ErrorCode::kInvalidOptions);
}

TEST_CASE("catalog: the newest release version of each pair, its model's files, never qualityModel", "[catalog]") {
  std::vector<nlohmann::json> r = pair_records("fr", "en", "1.0");
  // A newer version only Nightly sees, and a newer release model whose vocab stayed at 1.0 ...
  for (auto& x : pair_records("fr", "en", "1.1a1", "env.channel == 'default' || env.channel == 'nightly'")) r.push_back(x);
  r.push_back(record("fr", "en", "qualityModel", "1.0"));
  r.push_back(record("fr", "en", "futureType", "1.0"));
  for (auto& x : pair_records("en", "de", "1.0")) r.push_back(x);
  r.push_back(record("en", "de", "model", "1.2"));
  r.push_back(record("en", "de", "lex", "1.2"));
  // ... a split-vocab model that replaced a shared one (the old vocab must not be used) ...
  r.push_back(record("es", "en", "model", "2.0"));
  r.push_back(record("es", "en", "vocab", "1.0"));
  r.push_back(record("es", "en", "srcvocab", "2.0"));
  r.push_back(record("es", "en", "trgvocab", "2.0"));
  const auto records = parse(r);

  const cat::Catalog release(records);
  REQUIRE(release.models().size() == 2);  // fr->en and es->en; en->de is refused below
  const cat::Plan fr = release.plan("fr", "en");
  REQUIRE(fr.steps.size() == 1);
  CHECK(fr.steps[0].version == "1.0");
  std::vector<std::string> types;
  for (const auto& f : fr.steps[0].files) types.push_back(f.file_type);
  CHECK(types == std::vector<std::string>{"model", "vocab", "lex"});

  // en->de's newest model (1.2) has no vocab of its version: Firefox's #filterByModelVersion drops
  // the 1.0 one, so the pair is refused rather than run with a vocabulary of another model.
  CHECK(code_of([&] { release.plan("en", "de"); }) == ErrorCode::kInvalidCatalog);
  const cat::Plan es = release.plan("es", "en");
  CHECK(kind_of(es.steps[0], "srcvocab") == "2.0");
  CHECK(kind_of(es.steps[0], "vocab").empty());

  const cat::Catalog nightly(records, {cat::Channel::kNightly, ""});
  CHECK(nightly.plan("fr", "en").steps[0].version == "1.1a1");
  CHECK(cat::Catalog(records, {cat::Channel::kRelease, "base"}).models().empty());
}

TEST_CASE("catalog: a pair without a vocabulary is no model", "[catalog]") {
  std::vector<nlohmann::json> r = {record("de", "en", "model", "1.0"), record("de", "en", "lex", "1.0")};
  for (auto& x : pair_records("en", "fr", "1.0")) r.push_back(x);
  const cat::Catalog c(parse(r));
  CHECK(c.models().size() == 1);
  try {
    c.plan("de", "fr");
    FAIL("planned a pair without a model");
  } catch (const tformer::Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidCatalog);
    CHECK(std::string(e.what()).find("de->en (it has no vocab") != std::string::npos);
  }
}

TEST_CASE("catalog: direct pairs, pivots through English, and what is missing", "[catalog]") {
  std::vector<nlohmann::json> r;
  for (const auto& [s, t] : std::vector<std::pair<std::string, std::string>>{{"fr", "en"}, {"en", "de"}, {"de", "en"}, {"fr", "de"}})
    for (auto& x : pair_records(s, t, "1.0")) r.push_back(x);
  const cat::Catalog c(parse(r));
  CHECK_FALSE(c.plan("fr", "de").pivot());  // a direct model wins
  const cat::Plan de_fr = c.plan("de", "en");
  CHECK_FALSE(de_fr.pivot());
  CHECK(code_of([&] { c.plan("de", "de"); }) == ErrorCode::kInvalidCatalog);
  CHECK(code_of([&] { c.plan("de", "fr"); }) == ErrorCode::kInvalidCatalog);  // no en->fr
  CHECK(code_of([&] { c.plan("en", "fr"); }) == ErrorCode::kInvalidCatalog);
  std::vector<nlohmann::json> r2 = r;
  for (auto& x : pair_records("en", "fr", "1.0")) r2.push_back(x);
  const cat::Catalog c2(parse(r2));
  const cat::Plan p = c2.plan("de", "fr");
  REQUIRE(p.pivot());
  CHECK(p.steps[0].source == "de");
  CHECK(p.steps[0].target == "en");
  CHECK(p.steps[1].source == "en");
  CHECK(p.steps[1].target == "fr");
  CHECK(p.download_bytes() == 6 * 40);
  size_t pivots = 0;
  for (const auto& x : c2.pairs()) pivots += x.pivot();
  CHECK(c2.pairs().size() == 5 + 1);  // fr-en en-de de-en fr-de en-fr direct, de-fr through English
  CHECK(pivots == 1);
}

TEST_CASE("catalog: malformed and hostile records are refused with the record named", "[catalog]") {
  auto refused = [](nlohmann::json rec, const std::string& expect) {
    try {
      cat::parse_records(nlohmann::json{{"data", {rec}}}.dump());
      FAIL("accepted: " + rec.dump());
    } catch (const tformer::Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidCatalog);
      CHECK(e.phase() == tformer::Phase::kCatalog);
      INFO(e.what());
      CHECK(std::string(e.what()).find(expect) != std::string::npos);
    }
  };
  const nlohmann::json good = record("fr", "en", "model", "1.0");
  CHECK(cat::parse_records(nlohmann::json{{"data", {good}}}.dump()).size() == 1);
  auto with = [&](const std::string& pointer, nlohmann::json value) {
    nlohmann::json r = good;
    r[nlohmann::json::json_pointer(pointer)] = value;
    return r;
  };
  refused(with("/attachment/location", "../../etc/passwd"), "not a relative path");
  refused(with("/attachment/location", "/abs/x.zst"), "not a relative path");
  refused(with("/attachment/location", "https://evil.example/x.zst"), "not a relative path");
  refused(with("/name", "../model.bin"), "not a plain file name");
  refused(with("/name", ".hidden"), "not a plain file name");
  refused(with("/attachment/hash", "abc"), "not a sha256");
  refused(with("/decompressedHash", "zz"), "not a sha256");
  refused(with("/attachment/size", -1), "not a byte count");
  refused(with("/decompressedSize", uint64_t(1) << 40), "more than the limit");
  refused(with("/version", 3), "version is not a string");
  refused(with("/sourceLanguage", "fr/../x"), "sourceLanguage 'fr/../x' is not a language tag");
  // Every field that reaches a cache path, with each way out of a folder: refused, the field named.
  const std::vector<std::string> escapes = {"x/../../../../victim/keep", "..", "/home/user/.ssh", "..\\..\\x",
                                            std::string("a\0/../b", 7), "%2e%2e%2fvictim", "a b"};
  for (const std::string& bad : escapes) {
    INFO(bad);
    refused(with("/architecture", bad), "architecture ");
    refused(with("/version", bad), "version ");
    refused(with("/name", bad), "name ");
    refused(with("/sourceLanguage", bad), "sourceLanguage ");
    refused(with("/targetLanguage", bad), "targetLanguage ");
    refused(with("/attachment/location", bad), "attachment.location ");
  }
  for (const std::string& bad : {"1..0", "-tiny", "tiny-", "", "a_b"}) {
    INFO(bad);
    if (!bad.empty()) refused(with("/architecture", bad), "architecture ");
    refused(with("/version", bad), "version ");
    refused(with("/sourceLanguage", bad), "sourceLanguage ");
  }
  // What Firefox's records hold is accepted.
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, std::string>>{
           {"/architecture", "base-memory"}, {"/architecture", ""}, {"/version", "2.0a1"}, {"/version", "1.0.1"},
           {"/sourceLanguage", "zh-Hant"}, {"/targetLanguage", "sr-Latn-RS"}})
    CHECK(cat::parse_records(nlohmann::json{{"data", {with(pointer, value)}}}.dump()).size() == 1);
  // A value is shown with control characters escaped and cut short.
  try {
    cat::parse_records(nlohmann::json{{"data", {with("/architecture", "\x1b]0;owned\x07" + std::string(500, 'x'))}}}.dump());
    FAIL("accepted");
  } catch (const tformer::Error& e) {
    const std::string what = e.what();
    CHECK(what.find('\x1b') == std::string::npos);
    CHECK(what.find("\\x1b]0;owned\\x07") != std::string::npos);
    INFO(what);
    CHECK(what.find("(510 bytes)") != std::string::npos);
    CHECK(what.size() < 300);
  }
  nlohmann::json no_att = good;
  no_att.erase("attachment");
  refused(no_att, "has no attachment");
  nlohmann::json no_hash = good;
  no_hash.erase("decompressedHash");
  refused(no_hash, "zstd but has no decompressedHash");
  CHECK(code_of([] { cat::parse_records("not json"); }) == ErrorCode::kInvalidCatalog);
  CHECK(code_of([] { cat::parse_records("{\"data\": 3}"); }) == ErrorCode::kInvalidCatalog);
  CHECK(code_of([] { cat::parse_records("[]"); }) == ErrorCode::kInvalidCatalog);
  CHECK(code_of([] { cat::parse_records("{\"data\": [1]}"); }) == ErrorCode::kInvalidCatalog);
  cat::Limits few;
  few.max_records = 1;
  CHECK(code_of([&] { cat::parse_records(nlohmann::json{{"data", {good, good}}}.dump(), few); }) == ErrorCode::kInvalidCatalog);

  CHECK(cat::parse_attachments_base(R"({"capabilities":{"attachments":{"base_url":"https://cdn.example/"}}})") ==
        "https://cdn.example/");
  CHECK(cat::parse_attachments_base(R"({"capabilities":{"attachments":{"base_url":"http://h/a"}}})") == "http://h/a/");
  CHECK(code_of([] { cat::parse_attachments_base(R"({"capabilities":{}})"); }) == ErrorCode::kInvalidCatalog);
  CHECK(code_of([] { cat::parse_attachments_base(R"({"capabilities":{"attachments":{"base_url":"file:///etc/"}}})"); }) ==
        ErrorCode::kInvalidCatalog);
  CHECK(cat::records_url("https://h/v1/") == "https://h/v1/buckets/main/collections/translations-models-v2/records");
}

TEST_CASE("catalog: sha256 as FIPS 180-4's examples give it", "[catalog]") {
  CHECK(hash_of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hash_of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hash_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hash_of(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  CHECK(hash_of(std::string(55, 'x')).size() == 64);  // one block and two blocks of padding
  CHECK(hash_of(std::string(56, 'x')) != hash_of(std::string(57, 'x')));
}

#if !defined(__EMSCRIPTEN__)
namespace {

std::vector<uint8_t> compress(const std::string& data, bool state_size) {
  std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, state_size ? 1 : 0);
  const size_t n = ZSTD_compress2(c, out.data(), out.size(), data.data(), data.size());
  ZSTD_freeCCtx(c);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

cat::Record file_record(const std::string& content, const std::vector<uint8_t>& download) {
  cat::Record r;
  r.name = "model.fren.intgemm.alphas.bin";
  r.decompressed_hash = hash_of(content);
  r.decompressed_size = content.size();
  r.attachment.hash = cat::sha256_hex(download.data(), download.size());
  r.attachment.size = download.size();
  r.attachment.filename = r.name + ".zst";
  r.attachment.mimetype = "application/zstd";
  return r;
}

std::string unpack_error(const cat::Record& r, const std::vector<uint8_t>& bytes) {
  try {
    cat::unpack(r, bytes.data(), bytes.size());
  } catch (const tformer::Error& e) {
    CHECK(e.code() == ErrorCode::kDownload);
    CHECK(e.phase() == tformer::Phase::kDownload);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("catalog: unpack checks size and both hashes and refuses zstd bombs", "[catalog]") {
  std::string content;
  for (int i = 0; i < 20000; ++i) content += "weights " + std::to_string(i % 97) + ";";
  for (bool state_size : {true, false}) {
    const std::vector<uint8_t> z = compress(content, state_size);
    const cat::Record r = file_record(content, z);
    const std::vector<uint8_t> out = cat::unpack(r, z.data(), z.size());
    CHECK(std::string(out.begin(), out.end()) == content);

    std::vector<uint8_t> cut(z.begin(), z.begin() + long(z.size() / 2));
    CHECK(unpack_error(r, cut).find("truncated: " + std::to_string(cut.size()) + " of") != std::string::npos);
    std::vector<uint8_t> flipped = z;
    flipped[flipped.size() / 2] ^= 1;
    CHECK(unpack_error(r, flipped).find("does not match its sha256") != std::string::npos);

    // A bomb: the record states a tenth of what the data decompresses to (and hashes match the download).
    cat::Record bomb = r;
    bomb.decompressed_size = content.size() / 10;
    const std::string e = unpack_error(bomb, z);
    CHECK((e.find("more than the " + std::to_string(bomb.decompressed_size)) != std::string::npos ||
           e.find("decompresses to " + std::to_string(content.size())) != std::string::npos));
    // One byte short of the truth is refused as well; the decompressed hash is checked.
    bomb.decompressed_size = content.size() - 1;
    CHECK_FALSE(unpack_error(bomb, z).empty());
    cat::Record wrong = r;
    wrong.decompressed_hash = hash_of("another file");
    CHECK(unpack_error(wrong, z).find("decompressedHash") != std::string::npos);
    // A zstd frame cut short but consistent with its record (hashes of the cut data) is truncated.
    const cat::Record of_cut = file_record(content, cut);
    CHECK(unpack_error(of_cut, cut).find("truncated") != std::string::npos);
  }
  // Not zstd at all; an uncompressed record is used as downloaded.
  const std::vector<uint8_t> plain(content.begin(), content.end());
  cat::Record r = file_record(content, plain);
  CHECK(unpack_error(r, plain).find("not zstd") != std::string::npos);
  r.attachment.mimetype = "application/octet-stream";
  CHECK(cat::unpack(r, plain.data(), plain.size()) == plain);
  CHECK_NOTHROW(cat::check_unpacked(r, plain.data(), plain.size()));
  CHECK(code_of([&] { cat::check_unpacked(r, plain.data(), plain.size() - 1); }) == ErrorCode::kDownload);
}
#endif

TEST_CASE("catalog: a pivot's alignment is composed through both steps", "[catalog]") {
  // First step: 2 source tokens -> pieces "▁ab", "c", "</s>"; second step: its source pieces
  // "▁a", "bc", "</s>" -> 2 target tokens.
  const std::vector<float> first = {1, 0,  0, 1,  0.5f, 0.5f};
  const std::vector<std::string> first_pieces = {"\xe2\x96\x81" "ab", "c", "</s>"};
  const std::vector<std::string> second_source = {"\xe2\x96\x81" "a", "bc", "</s>"};
  const std::vector<float> second = {1, 0, 0,  0, 1, 0};
  const std::vector<float> a = tformer::compose_alignments(first, first_pieces, 2, second, second_source, 2);
  REQUIRE(a.size() == 4);
  // "▁a" lies in "▁ab" (source 0); "bc" is half "▁ab" (source 0) and half "c" (source 1).
  CHECK(a[0] == Approx(1.0));
  CHECK(a[1] == Approx(0.0));
  CHECK(a[2] == Approx(0.5));
  CHECK(a[3] == Approx(0.5));
  // Shapes that do not fit give no alignment rather than a wrong one.
  CHECK(tformer::compose_alignments(first, first_pieces, 3, second, second_source, 2).empty());
  CHECK(tformer::compose_alignments({}, first_pieces, 2, second, second_source, 2).empty());
}
