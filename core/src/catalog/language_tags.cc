// Language tags checked and canonicalized as ECMA-402 does it (UTS #35's canonical form: subtags
// cased, aliases replaced, variants and extensions sorted), and matched by the polyfill's best fit
// (web/src/standard/language-tags.js: bestFit). Both sides are held to one table of tags by
// tests/core/test_language_tags.cc and tests/web/language_tags.test.mjs.
#include "tformer/language_tags.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "catalog/language_data.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer {
namespace {

bool all_of(std::string_view s, int (*is)(int)) {
  return std::all_of(s.begin(), s.end(), [&](char c) { return is(static_cast<unsigned char>(c)) != 0; });
}
bool alpha(std::string_view s) { return all_of(s, std::isalpha); }
bool digits(std::string_view s) { return all_of(s, std::isdigit); }
bool alnum(std::string_view s) { return all_of(s, std::isalnum); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
std::string title(std::string_view s) {
  std::string out = lower(s);
  if (!out.empty()) out[0] = char(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

bool is_language(std::string_view s) { return alpha(s) && (s.size() == 2 || s.size() == 3 || (s.size() >= 5 && s.size() <= 8)); }
bool is_script(std::string_view s) { return alpha(s) && s.size() == 4; }
bool is_region(std::string_view s) { return (alpha(s) && s.size() == 2) || (digits(s) && s.size() == 3); }
bool is_variant(std::string_view s) {
  return alnum(s) && ((s.size() >= 5 && s.size() <= 8) || (s.size() == 4 && std::isdigit(static_cast<unsigned char>(s[0]))));
}

// The tables of language_data.cc, read once.
struct Tables {
  struct Likely {
    std::string script, region;
  };
  std::map<std::string, Likely> likely;
  std::map<std::pair<std::string, std::string>, std::string> region_scripts;
  std::map<std::string, std::string> language_aliases, region_aliases;
};

std::vector<std::vector<std::string>> entries(const char* table) {
  std::vector<std::vector<std::string>> out;
  std::string_view rest(table);
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    const std::string_view entry = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (entry.empty()) continue;
    std::vector<std::string> fields;
    for (size_t b = 0;;) {
      const size_t colon = entry.find(':', b);
      fields.emplace_back(entry.substr(b, colon == std::string_view::npos ? std::string_view::npos : colon - b));
      if (colon == std::string_view::npos) break;
      b = colon + 1;
    }
    out.push_back(std::move(fields));
  }
  return out;
}

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    for (const auto& e : entries(language_data::kLikely)) t.likely[e.at(0)] = {e.at(1), e.at(2)};
    for (const auto& e : entries(language_data::kRegionScripts)) t.region_scripts[{e.at(0), e.at(1)}] = e.at(2);
    for (const auto& e : entries(language_data::kLanguageAliases)) t.language_aliases[e.at(0)] = e.at(1);
    for (const auto& e : entries(language_data::kRegionAliases)) t.region_aliases[e.at(0)] = e.at(1);
    return t;
  }();
  return t;
}

struct Parsed {
  std::string language, script, region;
  std::vector<std::string> variants;
  std::vector<std::pair<char, std::vector<std::string>>> extensions;  // singleton, its subtags
  std::vector<std::string> private_use;
};

[[noreturn]] void not_a_tag(std::string_view tag, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, Phase::kCatalog,
              "'" + printable(std::string(tag)) + "' is not a language tag (BCP 47: a language of 2-3 or 5-8 letters, then " +
              "a script, a region and variants, joined by '-'): " + why);
}

// A unicode extension's subtags in canonical order: attributes first, then the keywords by key,
// each key's "true" value left out.
std::vector<std::string> canonical_unicode_extension(const std::vector<std::string>& subtags) {
  std::vector<std::string> attributes;
  std::vector<std::pair<std::string, std::vector<std::string>>> keywords;
  for (const auto& s : subtags) {
    if (s.size() == 2) keywords.push_back({s, {}});
    else if (keywords.empty()) attributes.push_back(s);
    else keywords.back().second.push_back(s);
  }
  std::stable_sort(keywords.begin(), keywords.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<std::string> out = attributes;
  for (auto& [key, values] : keywords) {
    out.push_back(key);
    if (values.size() == 1 && values[0] == "true") continue;
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

Parsed parse(std::string_view tag) {
  std::vector<std::string> subtags;
  for (size_t b = 0;;) {
    const size_t dash = tag.find('-', b);
    const std::string_view s = tag.substr(b, dash == std::string_view::npos ? std::string_view::npos : dash - b);
    if (s.empty()) not_a_tag(tag, tag.empty() ? "it is empty" : "an empty subtag");
    if (!alnum(s)) not_a_tag(tag, "'" + printable(std::string(s)) + "' holds a character other than a letter or a digit");
    if (s.size() > 8) not_a_tag(tag, "'" + std::string(s) + "' is longer than 8 characters");
    subtags.push_back(lower(s));
    if (dash == std::string_view::npos) break;
    b = dash + 1;
  }
  Parsed p;
  size_t i = 0;
  if (!is_language(subtags[0])) not_a_tag(tag, "'" + subtags[0] + "' is not a language subtag");
  p.language = subtags[i++];
  if (i < subtags.size() && is_script(subtags[i])) p.script = title(subtags[i++]);
  if (i < subtags.size() && is_region(subtags[i])) p.region = upper(subtags[i++]);
  std::set<std::string> seen;
  for (; i < subtags.size() && is_variant(subtags[i]); ++i) {
    if (!seen.insert(subtags[i]).second) not_a_tag(tag, "the variant '" + subtags[i] + "' is repeated");
    p.variants.push_back(subtags[i]);
  }
  std::set<char> singletons;
  while (i < subtags.size()) {
    const std::string& s = subtags[i];
    if (s.size() != 1) not_a_tag(tag, "'" + s + "' is not in a place a subtag of its kind can be");
    ++i;
    if (s == "x") {
      if (i == subtags.size()) not_a_tag(tag, "'x' starts no private use subtags");
      p.private_use.assign(subtags.begin() + long(i), subtags.end());
      break;
    }
    if (!singletons.insert(s[0]).second) not_a_tag(tag, "the extension '" + s + "' is repeated");
    std::vector<std::string> ext;
    for (; i < subtags.size() && subtags[i].size() >= 2; ++i) ext.push_back(subtags[i]);
    if (ext.empty()) not_a_tag(tag, "the extension '" + s + "' has no subtags");
    p.extensions.push_back({s[0], s == "u" ? canonical_unicode_extension(ext) : ext});
  }
  return p;
}

// UTS #35's alias replacement for the language and region subtags: a replacement's script and
// region apply where the tag has none.
void replace_aliases(Parsed& p) {
  const Tables& t = tables();
  if (const auto a = t.language_aliases.find(p.language); a != t.language_aliases.end()) {
    const Parsed r = parse(a->second);
    p.language = r.language;
    if (p.script.empty()) p.script = r.script;
    if (p.region.empty()) p.region = r.region;
  }
  if (const auto a = t.region_aliases.find(p.region); a != t.region_aliases.end()) p.region = a->second;
}

std::string joined(const Parsed& p) {
  std::string out = p.language;
  for (const std::string* s : {&p.script, &p.region})
    if (!s->empty()) out += "-" + *s;
  std::vector<std::string> variants = p.variants;
  std::sort(variants.begin(), variants.end());
  for (const auto& v : variants) out += "-" + v;
  auto extensions = p.extensions;
  std::sort(extensions.begin(), extensions.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (const auto& [singleton, subtags] : extensions) {
    out += "-";
    out += singleton;
    for (const auto& s : subtags) out += "-" + s;
  }
  if (!p.private_use.empty()) out += "-x";
  for (const auto& s : p.private_use) out += "-" + s;
  return out;
}

// The language, script and region of a canonical tag filled in with the likely ones
// (Intl.Locale.maximize): "zh-TW" -> zh Hant TW, "en" -> en Latn US, "und" -> en Latn US.
struct Likely {
  std::string language, script, region;
};
Likely likely(const std::string& tag) {
  Parsed p;
  try {
    p = parse(tag);
  } catch (const Error&) {
    return {lower(tag.substr(0, tag.find('-'))), "", ""};
  }
  const Tables& t = tables();
  if (p.language == "und" && p.script.empty() && p.region.empty()) return {"en", "Latn", "US"};
  const auto known = t.likely.find(p.language);
  if (known == t.likely.end()) return {p.language, p.script, p.region};
  Likely l{p.language, p.script, p.region.empty() ? known->second.region : p.region};
  if (l.script.empty()) {
    const auto by_region = t.region_scripts.find({p.language, p.region});
    l.script = by_region != t.region_scripts.end() ? by_region->second : known->second.script;
  }
  return l;
}

}  // namespace

std::string canonical_language_tag(std::string_view tag) {
  Parsed p = parse(tag);
  replace_aliases(p);
  return joined(p);
}

std::optional<std::string> best_fit_language(const std::vector<std::string>& available, const std::string& requested) {
  if (std::find(available.begin(), available.end(), requested) != available.end()) return requested;
  const Likely want = likely(requested);
  std::optional<std::string> fit;
  for (const auto& tag : available) {
    const Likely have = likely(tag);
    if (have.language != want.language || have.script != want.script) continue;
    if (have.region == want.region) return tag;
    // Without a region match, the least specific tag ("en" rather than "en-AU" for "en-GB").
    if (!fit || tag.size() < fit->size()) fit = tag;
  }
  return fit;
}

}  // namespace tformer
