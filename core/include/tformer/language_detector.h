// Language detection with CLD2 (Compact Language Detector 2), the detector Firefox ships for its
// translations: which languages a UTF-8 text is written in, and how much of it is in each.
//
// CLD2 scores the text's letters in runs of one script, attributes each run to a language and sums
// up: the answer is the (up to) three languages with most of the text, each with its share of the
// scored bytes, and whether CLD2 deems the answer reliable. Mixed-language text gives several
// languages, each with its share, and the runs themselves (`spans`).
//
// Natively this links Debian's libcld2 (its Chrome-sized tables); the wasm build compiles the same
// Debian source with the same tables (core/third_party/cld2_deps.cmake), so both answer alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tformer {

// Firefox does not trust a detection made on fewer characters than this, whatever CLD2 says.
constexpr size_t kConfidentDetectionChars = 200;

struct DetectedLanguage {
  std::string language;  // a BCP 47 tag in its canonical form ("en", "he", "zh-Hant", "fil")
  double confidence;     // the share of the text's scored letters in this language, 0 to 1
  double score;          // CLD2's normalized score: how well those letters fit the language
};

// A run of the input in one language, in UTF-8 bytes of the input.
struct DetectedSpan {
  size_t offset;
  size_t length;
  std::string language;  // "und" where CLD2 could not tell
};

struct LanguageDetection {
  // Most of the text first; at most three (CLD2 keeps three). Their confidences sum to at most 1.
  std::vector<DetectedLanguage> languages;
  // The share of the text in no detected language: 1 minus the confidences' sum (no letters: 1).
  double unknown = 1;
  // CLD2's own judgement: enough letters, and a clear winner.
  bool reliable = false;
  // What Firefox acts on: reliable, and at least kConfidentDetectionChars characters.
  bool confident = false;
  size_t characters = 0;    // code points of the input
  size_t scored_bytes = 0;  // bytes of letters CLD2 scored
  std::vector<DetectedSpan> spans;
};

// Detects the languages of valid UTF-8 plain text. Throws tformer::Error (kInvalidText, phase
// kDetect) for text that is not valid UTF-8. Empty text (or text without letters) detects nothing:
// no languages, unknown 1, not reliable.
LanguageDetection detect_language(std::string_view text);

// A detection as the web's LanguageDetector.detect() reports it (webmachinelearning/translation-api,
// "detect languages"): the languages by confidence, down to the first that is 0 or below the
// unknown share, stopping once their sum reaches 0.99; then "und" with the rest (1 - their sum).
// The last entry is always "und". `score` is 0 for "und".
std::vector<DetectedLanguage> ranked_languages(const LanguageDetection& detection);

// The languages detect_language can report, as canonical BCP 47 tags, sorted.
const std::vector<std::string>& detectable_languages();

// CLD2's language code (its LanguageCode()) as a canonical BCP 47 tag: its old ISO codes renamed
// ("iw" -> "he", "jw" -> "jv", "tl" -> "fil"), its placeholders for unknown text ("un", "xxx",
// "xx-Latn", ...) "und".
std::string bcp47_of_cld2_code(std::string_view code);

}  // namespace tformer
