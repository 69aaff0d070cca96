// detect_language (tformer/language_detector.h) on CLD2's ExtDetectLanguageSummary, called as
// Firefox calls it: plain text, no hints, no flags (CLD2 then moves the bytes of languages it
// cannot vouch for to "unknown" instead of guessing).
#include "tformer/language_detector.h"

#include <cld2/internal/cld2tablesummary.h>
#include <cld2/internal/lang_script.h>
#include <cld2/public/compact_lang_det.h>
#include <cld2/public/encodings.h>

#include <algorithm>
#include <climits>
#include <set>
#include <sstream>

#include "tformer/error.h"
#include "util/utf8.h"

namespace CLD2 {
// The scoring tables the library was built with (cld2tablesummary.h); each names the
// language-scripts it recognizes.
extern const CLD2TableSummary kQuad_obj;
extern const CLD2TableSummary kQuad_obj2;
extern const CLD2TableSummary kDeltaOcta_obj;
extern const CLD2TableSummary kDistinctOcta_obj;
extern const CLD2TableSummary kCjkDeltaBi_obj;
extern const CLD2TableSummary kCjkCompat_obj;
}  // namespace CLD2

namespace tformer {
namespace {

std::string tag_of(CLD2::Language language) { return bcp47_of_cld2_code(CLD2::LanguageCode(language)); }

bool is_unknown(CLD2::Language language) { return tag_of(language) == "und"; }

}  // namespace

std::string bcp47_of_cld2_code(std::string_view code) {
  // CLD2's ISO 639-1 codes predate the renames that BCP 47 (and Intl.getCanonicalLocales) apply.
  if (code == "iw") return "he";
  if (code == "jw") return "jv";
  if (code == "tl") return "fil";
  // "un" (unknown), "xxx" (ignored), "xx-<Script>" (a script CLD2 has no language for) and
  // CLD2's private "zz?" codes (numbers, junk) name no language.
  if (code.empty() || code == "un" || code == "xxx" || code.substr(0, 3) == "xx-" ||
      (code.size() == 3 && code.substr(0, 2) == "zz"))
    return "und";
  return std::string(code);
}

LanguageDetection detect_language(std::string_view text) {
  const size_t bad = find_invalid_utf8(text);
  if (bad != std::string_view::npos) {
    std::ostringstream detail;
    detail << "the text is not valid UTF-8: byte 0x" << std::hex << std::uppercase
           << int(static_cast<unsigned char>(text[bad])) << std::dec << " at offset " << bad;
    throw Error(ErrorCode::kInvalidText, Phase::kDetect, detail.str());
  }
  // CLD2 counts in int.
  if (text.size() > size_t(INT_MAX))
    throw Error(ErrorCode::kTextTooLong, Phase::kDetect, "the text is longer than 2 GiB");

  LanguageDetection out;
  out.characters = count_chars(text);
  if (text.empty()) return out;

  CLD2::Language language3[3];
  int percent3[3];
  double score3[3];
  CLD2::ResultChunkVector chunks;
  int scored_bytes = 0;
  bool reliable = false;
  const CLD2::CLDHints no_hints = {nullptr, nullptr, CLD2::UNKNOWN_ENCODING, CLD2::UNKNOWN_LANGUAGE};
  CLD2::ExtDetectLanguageSummary(text.data(), int(text.size()), /*is_plain_text=*/true, &no_hints,
                                 /*flags=*/0, language3, percent3, score3, &chunks, &scored_bytes, &reliable);

  double known = 0;
  for (int i = 0; i < 3; ++i) {
    if (percent3[i] <= 0 || is_unknown(language3[i])) continue;
    out.languages.push_back({tag_of(language3[i]), percent3[i] / 100.0, score3[i]});
    known += percent3[i] / 100.0;
  }
  std::stable_sort(out.languages.begin(), out.languages.end(),
                   [](const DetectedLanguage& a, const DetectedLanguage& b) { return a.confidence > b.confidence; });
  out.unknown = std::max(0.0, 1.0 - known);
  out.reliable = reliable && !out.languages.empty();
  out.confident = out.reliable && out.characters >= kConfidentDetectionChars;
  out.scored_bytes = size_t(scored_bytes);
  for (const CLD2::ResultChunk& c : chunks) {
    const std::string language = tag_of(static_cast<CLD2::Language>(c.lang1));
    // Neighbouring chunks of one language are one span.
    if (!out.spans.empty() && out.spans.back().language == language &&
        out.spans.back().offset + out.spans.back().length == size_t(c.offset)) {
      out.spans.back().length += size_t(c.bytes);
    } else {
      out.spans.push_back({size_t(c.offset), size_t(c.bytes), language});
    }
  }
  return out;
}

std::vector<DetectedLanguage> ranked_languages(const LanguageDetection& detection) {
  std::vector<DetectedLanguage> out;
  double cumulative = 0;
  for (const DetectedLanguage& l : detection.languages) {  // sorted by confidence already
    if (l.confidence <= 0 || l.confidence < detection.unknown) break;
    out.push_back(l);
    cumulative += l.confidence;
    if (cumulative >= 0.99) break;
  }
  out.push_back({"und", std::max(0.0, 1.0 - cumulative), 0});
  return out;
}

const std::vector<std::string>& detectable_languages() {
  static const std::vector<std::string> languages = [] {
    std::set<std::string> tags;
    // The languages of each table's "lang-Script" list ("en-Latn az-Arab ..."), CLD2's codes.
    for (const CLD2::CLD2TableSummary* table :
         {&CLD2::kQuad_obj, &CLD2::kQuad_obj2, &CLD2::kDeltaOcta_obj, &CLD2::kDistinctOcta_obj,
          &CLD2::kCjkDeltaBi_obj, &CLD2::kCjkCompat_obj}) {
      std::istringstream list(table->kRecognizedLangScripts ? table->kRecognizedLangScripts : "");
      std::string lang_script;
      while (list >> lang_script) {
        // Traditional Chinese is a language of its own to CLD2 ("zh-Hant"); others drop the script.
        const size_t dash = lang_script.rfind('-');
        const bool keep_script = lang_script == "zh-Hant" || dash == std::string::npos;
        tags.insert(bcp47_of_cld2_code(keep_script ? lang_script : lang_script.substr(0, dash)));
      }
    }
    // Scripts that stand for one language are detected by their letters alone (Greek, Thai, ...).
    for (int s = 0; s < CLD2::NUM_ULSCRIPTS; ++s) {
      const auto script = static_cast<CLD2::ULScript>(s);
      if (CLD2::ULScriptRecognitionType(script) == CLD2::RTypeOne)
        tags.insert(bcp47_of_cld2_code(CLD2::LanguageCode(CLD2::DefaultLanguage(script))));
    }
    tags.erase("und");
    return std::vector<std::string>(tags.begin(), tags.end());
  }();
  return languages;
}

}  // namespace tformer
