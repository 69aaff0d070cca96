// Language tags as the web's Translator and LanguageDetector APIs take them, and so as the npm
// package's polyfill does (web/src/standard/language-tags.js): a tag is checked and put in its
// canonical form as ECMA-402's Intl.getCanonicalLocales does ("DE" -> "de", "de-at" -> "de-AT",
// "iw" -> "he", "deu" -> "de"), and matched to the tags a catalogue has by best fit: the tag itself,
// else a tag of the same language and likely script, the same region preferred, else the least
// specific one ("de-AT" fits "de", "zh-TW" fits "zh-Hant" but not "zh", which is Simplified).
//
// The likely scripts and regions are CLDR's (Intl.Locale.maximize), for the two-letter languages
// and those an alias leads to; a language outside them has the script and region its tag states.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tformer {

// The canonical form of a BCP 47 language tag. Throws tformer::Error (kInvalidArgument) naming the
// tag and the part of it that is wrong when it is not a well-formed tag ("EN_us", "", "x").
std::string canonical_language_tag(std::string_view tag);

// The best fit for `requested` (a canonical tag) among `available` (canonical tags), or none.
std::optional<std::string> best_fit_language(const std::vector<std::string>& available, const std::string& requested);

}  // namespace tformer
