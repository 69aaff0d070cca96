// Language tags (tformer/language_tags.h) against the table the web's Intl gives the package's
// polyfill (tests/fixtures/language_tags.json, computed by web/src/standard/language-tags.js and
// checked against it by tests/web/language_tags.test.mjs): the same canonical tags, the same
// refusals and the same best fits. Then the catalogue's pairs found by that rule: "DE" -> "EN" and
// "de-AT" -> "en" are its de->en, and a pair it lacks is refused with the nearest pairs it has.
#include <catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tformer/catalog.h"
#include "tformer/language_tags.h"

namespace cat = tformer::catalog;

namespace {

nlohmann::json table() {
  std::ifstream in(std::string(TFORMER_FIXTURES_DIR) + "/language_tags.json");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// The files of a direct pair, as Firefox's records list them (only what plan() reads matters).
std::vector<nlohmann::json> pair_records(const std::string& src, const std::string& tgt) {
  std::vector<nlohmann::json> out;
  for (const std::string type : {"model", "vocab"}) {
    const std::string file = type + "." + src + tgt + (type == "model" ? ".bin" : ".spm");
    const std::string hash(64, 'a');
    out.push_back({{"id", file}, {"name", file}, {"sourceLanguage", src}, {"targetLanguage", tgt}, {"architecture", "tiny"},
                   {"version", "1.0"}, {"fileType", type}, {"filter_expression", ""}, {"decompressedHash", hash},
                   {"decompressedSize", 100},
                   {"attachment", {{"hash", hash}, {"size", 40}, {"filename", file},
                                   {"location", "main-workspace/translations-models-v2/" + file}, {"mimetype", ""}}}});
  }
  return out;
}

cat::Catalog catalog_of(const std::vector<std::pair<std::string, std::string>>& pairs) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& [s, t] : pairs)
    for (auto& r : pair_records(s, t)) data.push_back(r);
  return cat::Catalog(cat::parse_records(nlohmann::json{{"data", data}}.dump()));
}

std::string route(const cat::Plan& p) {
  std::string s;
  for (const auto& m : p.steps) s += (s.empty() ? "" : ", ") + m.source + "->" + m.target;
  return s;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tformer::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("language tags: canonical as Intl.getCanonicalLocales gives them, the same tags refused", "[language-tags]") {
  const nlohmann::json cases = table()["canonical"];
  REQUIRE(cases.size() > 50);
  for (const auto& c : cases) {
    const std::string tag = c[0];
    INFO("tag '" << tag << "'");
    if (c[1].is_null()) {
      try {
        tformer::canonical_language_tag(tag);
        FAIL("accepted");
      } catch (const tformer::Error& e) {
        CHECK(e.code() == tformer::ErrorCode::kInvalidArgument);
        CHECK_THAT(e.what(), Catch::Contains("'" + tag + "' is not a language tag"));
      }
    } else {
      CHECK(tformer::canonical_language_tag(tag) == c[1].get<std::string>());
    }
  }
}

TEST_CASE("language tags: the best fit the polyfill finds", "[language-tags]") {
  const nlohmann::json cases = table()["best_fit"];
  REQUIRE(cases.size() > 30);
  for (const auto& c : cases) {
    const std::vector<std::string> available = c[0];
    const std::string requested = c[1];
    INFO(c[0].dump() << " fit for " << requested);
    const std::optional<std::string> fit = tformer::best_fit_language(available, requested);
    if (c[2].is_null()) CHECK(!fit);
    else CHECK(fit.value_or("none") == c[2].get<std::string>());
  }
}

TEST_CASE("language tags: a catalogue's pair by best fit; a pair it lacks lists the nearest ones", "[language-tags]") {
  const cat::Catalog c = catalog_of({{"de", "en"}, {"en", "de"}, {"en", "fr"}, {"fr", "en"}, {"zh", "en"}, {"zh-Hant", "en"}});
  CHECK(route(c.plan("DE", "EN")) == "de->en");
  CHECK(route(c.plan("de-AT", "en")) == "de->en");
  CHECK(route(c.plan("deu", "en-GB")) == "de->en");
  CHECK(route(c.plan("DE", "FR-ca")) == "de->en, en->fr");
  CHECK(c.plan("de-CH", "fr").source == "de");  // the plan names the catalogue's tags
  CHECK(c.plan("de-CH", "fr").target == "fr");
  CHECK(route(c.plan("zh-TW", "en")) == "zh-Hant->en");
  CHECK(route(c.plan("zh-CN", "en")) == "zh->en");
  // Refused: a pair it lacks (the nearest pairs named), the same language twice, not a tag.
  const std::string missing = message_of([&] { c.plan("de", "it"); });
  CHECK_THAT(missing, Catch::Contains("cannot translate de to it"));
  CHECK_THAT(missing, Catch::Contains("the nearest pairs it has: de->en, de->fr"));
  const std::string into = message_of([&] { c.plan("it", "EN"); });
  CHECK_THAT(into, Catch::Contains("cannot translate it to en"));
  CHECK_THAT(into, Catch::Contains("the nearest pairs it has: de->en, fr->en, zh->en, zh-Hant->en"));
  CHECK_THAT(message_of([&] { c.plan("it", "ja"); }), Catch::Contains("it translates from de, en, fr, zh, zh-Hant only"));
  CHECK_THAT(message_of([&] { c.plan("DE", "de-AT"); }), Catch::Contains("the source and target languages are the same"));
  CHECK_THAT(message_of([&] { c.plan("de_AT", "en"); }), Catch::Contains("'de_AT' is not a language tag"));
  try {
    c.plan("de", "it");
    FAIL("accepted");
  } catch (const tformer::Error& e) {
    CHECK(e.code() == tformer::ErrorCode::kInvalidCatalog);
  }
}
