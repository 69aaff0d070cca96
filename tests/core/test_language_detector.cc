// Language detection (tformer/language_detector.h): CLD2's answers on sentences of FLORES-200 (dev
// split, ../shared/data/langid/flores200-dev; CC-BY-SA 4.0) whose language the corpus states, the
// web's result list built from them, the mapping of CLD2's codes to BCP 47, and every bad input.
#include <catch.hpp>

#include <algorithm>
#include <string>

#include "tformer/error.h"
#include "tformer/language_detector.h"

using namespace tformer;

namespace {

// FLORES-200 dev, sentence 3 in each language, and sentences 1-6 of German and of English.
const char* const kGerman = "Der JAS 39C Gripen stürzte gegen 9:30 Uhr Ortszeit (02:30 UTC) auf eine Startbahn und explodierte, sodass der Flughafen für kommerzielle Flüge geschlossen werden musste.";
const char* const kTraditionalChinese = "JAS 39C 獅鷲戰鬥機在當地時間上午 9 點 30 分（世界協調時間 02:30）墜落在跑道上並爆炸，導致機場暫停商業航班的起降。";
const char* const kJapanese = "JAS 39Cグリペンは現地時間の午前9時30分頃（UTC 0230）に滑走路に墜落して爆発し、その影響で空港の商業便が閉鎖されました。";
const char* const kHebrew = "המטוס מדגם The JAS 39C Gripen התרסק על המסלול בסביבות השעה 9:30 בבוקר בזמן המקומי (0230 UTC) והתפוצץ, מה שגרם לסגירת שדה התעופה לטיסות מסחריות.";
const char* const kGermanParagraph = "Am Montag haben die Wisenschaftler der Stanford University School of Medicine die Erfindung eines neuen Diagnosetools bekanntgegeben, mit dem Zellen nach ihrem Typ sortiert werden können: ein winziger, ausdruckbarer Chip, der für jeweils etwa einen US-Cent mit Standard-Tintenstrahldruckern hergestellt werden kann. Führende Forscher sagen, dass dies die Früherkennung von Krebs, Tuberkulose, HIV und Malaria für Patienten in einkommensschwachen Ländern fördern könnte, wo die Überlebensraten bei Krankheiten wie Brustkrebs teilweise nur halb so hoch sind wie in reicheren Ländern. Der JAS 39C Gripen stürzte gegen 9:30 Uhr Ortszeit (02:30 UTC) auf eine Startbahn und explodierte, sodass der Flughafen für kommerzielle Flüge geschlossen werden musste. Der Pilot wurde als Staffelführer Dilokrit Pattavee identifiziert. Lokale Medien berichten, dass ein Feuerwehrwagen während der Rettungsaktion umkippte. Der 28-jährige Vidal war vor drei Spielzeiten von Sevilla zu Barça gekommen.";
const char* const kEnglishParagraph = "On Monday, scientists from the Stanford University School of Medicine announced the invention of a new diagnostic tool that can sort cells by type: a tiny printable chip that can be manufactured using standard inkjet printers for possibly about one U.S. cent each. Lead researchers say this may bring early detection of cancer, tuberculosis, HIV and malaria to patients in low-income countries, where the survival rates for illnesses such as breast cancer can be half those of richer countries. The JAS 39C Gripen crashed onto a runway at around 9:30 am local time (0230 UTC) and exploded, closing the airport to commercial flights. The pilot was identified as Squadron Leader Dilokrit Pattavee. Local media reports an airport fire vehicle rolled over while responding. 28-year-old Vidal had joined Barça three seasons ago, from Sevilla.";

double confidence_of(const LanguageDetection& d, const std::string& language) {
  for (const DetectedLanguage& l : d.languages)
    if (l.language == language) return l.confidence;
  return 0;
}

}  // namespace

TEST_CASE("a sentence's language, with the tag BCP 47 gives it", "[detect]") {
  CHECK(detect_language(kGerman).languages.at(0).language == "de");
  CHECK(detect_language(kTraditionalChinese).languages.at(0).language == "zh-Hant");
  CHECK(detect_language(kJapanese).languages.at(0).language == "ja");
  const LanguageDetection hebrew = detect_language(kHebrew);  // CLD2 says "iw"
  CHECK(hebrew.languages.at(0).language == "he");
  // Its English aircraft name is not Hebrew: a span of its own, outside "he".
  CHECK(std::any_of(hebrew.spans.begin(), hebrew.spans.end(), [](const DetectedSpan& s) { return s.language != "he"; }));
}

TEST_CASE("confidences are shares of the text: they and the unknown share sum to 1", "[detect]") {
  for (const char* text : {kGerman, kTraditionalChinese, kJapanese, kHebrew}) {
    const LanguageDetection d = detect_language(text);
    double sum = d.unknown;
    for (size_t i = 0; i < d.languages.size(); ++i) {
      CHECK(d.languages[i].confidence > 0);
      CHECK(d.languages[i].confidence <= 1);
      if (i) CHECK(d.languages[i - 1].confidence >= d.languages[i].confidence);
      sum += d.languages[i].confidence;
    }
    CHECK(sum == Approx(1).margin(1e-9));
  }
}

TEST_CASE("mixed-language text: each language with its share, and its spans", "[detect]") {
  const std::string german = kGermanParagraph, english = kEnglishParagraph;
  const std::string text = german + " " + english;
  const LanguageDetection d = detect_language(text);
  REQUIRE(d.languages.size() >= 2);
  // About half each (the German half has more bytes, the English more letters per byte).
  CHECK(confidence_of(d, "de") == Approx(0.5).margin(0.1));
  CHECK(confidence_of(d, "en") == Approx(0.5).margin(0.1));
  // The spans tile the text, and the German paragraph's middle and the English one's are theirs.
  REQUIRE(!d.spans.empty());
  CHECK(d.spans.front().offset == 0);
  for (size_t i = 1; i < d.spans.size(); ++i) CHECK(d.spans[i].offset == d.spans[i - 1].offset + d.spans[i - 1].length);
  CHECK(d.spans.back().offset + d.spans.back().length == text.size());
  auto language_at = [&](size_t byte) {
    for (const DetectedSpan& s : d.spans)
      if (byte >= s.offset && byte < s.offset + s.length) return s.language;
    return std::string("none");
  };
  CHECK(language_at(german.size() / 2) == "de");
  CHECK(language_at(german.size() + 1 + english.size() / 2) == "en");
}

TEST_CASE("reliability: CLD2's verdict, and Firefox's 200 characters for confidence", "[detect]") {
  const LanguageDetection sentence = detect_language(kGerman);  // 167 characters
  CHECK(sentence.characters < kConfidentDetectionChars);
  CHECK(sentence.reliable);
  CHECK_FALSE(sentence.confident);
  const LanguageDetection paragraph = detect_language(kGermanParagraph);
  CHECK(paragraph.characters >= kConfidentDetectionChars);
  CHECK(paragraph.reliable);
  CHECK(paragraph.confident);
  // A word is no evidence.
  const LanguageDetection word = detect_language("Gripen");
  CHECK_FALSE(word.confident);
}

TEST_CASE("text without language: nothing detected, all unknown", "[detect]") {
  for (const char* text : {"", "12345 67 890", "   \t ", "!!! ??? ...", "\xF0\x9F\x98\x80\xF0\x9F\x8E\x89"}) {
    INFO(text);
    const LanguageDetection d = detect_language(text);
    CHECK(d.languages.empty());
    CHECK(d.unknown == 1);
    CHECK_FALSE(d.reliable);
    const std::vector<DetectedLanguage> ranked = ranked_languages(d);
    REQUIRE(ranked.size() == 1);
    CHECK(ranked[0].language == "und");
    CHECK(ranked[0].confidence == 1);
  }
}

TEST_CASE("malformed UTF-8 is refused, naming the byte and its offset", "[detect]") {
  for (const std::string text : {std::string("Hallo \xC3"), std::string("ab\xFF" "cd"), std::string("\xED\xA0\x80"),
                                 std::string("\xC0\xAF"), std::string("x\0\xF5", 3)}) {
    try {
      detect_language(text);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidText);
      CHECK(e.phase() == Phase::kDetect);
      CHECK(std::string(e.what()).find("not valid UTF-8") != std::string::npos);
    }
  }
}

TEST_CASE("huge and hostile input: an answer, no crash", "[detect]") {
  std::string huge;
  while (huge.size() < (8u << 20)) huge += std::string(kGermanParagraph) + " ";
  const LanguageDetection d = detect_language(huge);
  REQUIRE(!d.languages.empty());
  CHECK(d.languages[0].language == "de");
  CHECK(d.confident);
  // One character repeated, markup-like text, NULs: detected as something or nothing, never a crash.
  detect_language(std::string(1 << 20, 'a'));
  detect_language(std::string(1 << 16, '\0'));
  detect_language("<script>alert(1)</script><b>&amp;&lt;&#x41;</b>");
  detect_language(std::string(100000, ' ') + kGerman);
}

TEST_CASE("the web's result list: by confidence, up to 0.99, 'und' last with the rest", "[detect]") {
  auto detection = [](std::vector<DetectedLanguage> languages, double unknown) {
    LanguageDetection d;
    d.languages = std::move(languages);
    d.unknown = unknown;
    return d;
  };
  // Stops once the sum reaches 0.99: 0.6 + 0.395 = 0.995; the 0.005 left over goes to "und".
  auto r = ranked_languages(detection({{"de", 0.6, 1}, {"nl", 0.395, 1}, {"en", 0.005, 1}}, 0));
  REQUIRE(r.size() == 3);
  CHECK(r[0].language == "de");
  CHECK(r[1].language == "nl");
  CHECK(r[2].language == "und");
  CHECK(r[2].confidence == Approx(0.005));
  // A language less likely than "none of them" is left to "und".
  r = ranked_languages(detection({{"de", 0.5, 1}, {"nl", 0.2, 1}}, 0.3));
  REQUIRE(r.size() == 2);
  CHECK(r[0].language == "de");
  CHECK(r[1].language == "und");
  CHECK(r[1].confidence == Approx(0.5));
  // One language with all of the text: "und" with 0.
  r = ranked_languages(detection({{"fr", 1.0, 1}}, 0));
  REQUIRE(r.size() == 2);
  CHECK(r[1].language == "und");
  CHECK(r[1].confidence == 0);
}

TEST_CASE("CLD2's codes as canonical BCP 47 tags", "[detect]") {
  // ECMA-402's canonical forms (Intl.getCanonicalLocales): the old ISO 639-1 codes are renamed.
  CHECK(bcp47_of_cld2_code("iw") == "he");
  CHECK(bcp47_of_cld2_code("jw") == "jv");
  CHECK(bcp47_of_cld2_code("tl") == "fil");
  CHECK(bcp47_of_cld2_code("zh-Hant") == "zh-Hant");
  CHECK(bcp47_of_cld2_code("de") == "de");
  for (const char* unknown : {"un", "xxx", "xx-Latn", "xx-Qaai", "zzb", "zzp", ""}) CHECK(bcp47_of_cld2_code(unknown) == "und");
  const std::vector<std::string>& all = detectable_languages();
  CHECK(std::is_sorted(all.begin(), all.end()));
  for (const char* expected : {"de", "en", "fr", "he", "ja", "ko", "zh", "zh-Hant", "ru", "el", "th", "fil"})
    CHECK(std::find(all.begin(), all.end(), expected) != all.end());
  for (const char* absent : {"und", "iw", "jw", "tl"}) CHECK(std::find(all.begin(), all.end(), absent) == all.end());
}
