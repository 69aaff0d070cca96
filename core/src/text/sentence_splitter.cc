#include "text/sentence_splitter.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tformer {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Abbreviations after which a period does not end a sentence (English and German).
const std::set<std::string>& abbreviations() {
  static const std::set<std::string> words = {
      "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Sr", "Jr", "vs", "etc", "e.g", "i.e", "cf", "approx", "No",
      "Nr", "Fig", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
      "Inc", "Ltd", "Co", "Corp", "Gen", "Sen", "Rep", "Gov", "Mt", "Hr", "Fr", "Frau", "Hrn", "bzw",
      "ca", "vgl", "usw", "z.B", "d.h", "u.a", "s.o", "u.U", "z.T", "o.ä", "Str", "Tel", "geb", "Abs",
      "Art", "Bd", "Jh", "Mio", "Mrd", "evtl", "inkl", "exkl", "ggf", "sog", "bzgl", "min", "max"};
  return words;
}

// Length in bytes of the UTF-8 sequence starting at s[i] (1 for malformed bytes).
size_t char_length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  return std::min(n, s.size() - i);
}

bool is_closing(std::string_view s, size_t i, size_t* len) {
  static const char* closers[] = {"\"", "'", ")", "]", "\xE2\x80\x9D", "\xE2\x80\x99", "\xC2\xBB", "\xE2\x80\x9C",
                                  "\xC2\xAB"};
  for (const char* c : closers) {
    const std::string_view cs(c);
    if (s.substr(i, cs.size()) == cs) {
      *len = cs.size();
      return true;
    }
  }
  return false;
}

// Upper-case ASCII or Latin-1 letter, digit, or an opening quote or bracket.
bool starts_sentence(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (std::isupper(c) || std::isdigit(c) || c == '"' || c == '\'' || c == '(' || c == '[') return true;
  if (c == 0xC3 && i + 1 < s.size()) {
    const unsigned char d = static_cast<unsigned char>(s[i + 1]);
    return d >= 0x80 && d <= 0x9E && d != 0x97;  // U+00C0..U+00DE except the multiplication sign
  }
  const std::string_view rest = s.substr(i);
  for (std::string_view q : {"\xE2\x80\x9E", "\xE2\x80\x9C", "\xC2\xBB", "\xC2\xAB", "\xE2\x80\x98"})
    if (rest.substr(0, q.size()) == q) return true;
  return false;
}

// The word (letters, digits and inner periods) that ends right before position `end`.
std::string_view word_before(std::string_view s, size_t end) {
  size_t b = end;
  while (b > 0 && !is_space(static_cast<unsigned char>(s[b - 1])) && s[b - 1] != '\n' && s[b - 1] != '(' &&
         s[b - 1] != '"')
    --b;
  return s.substr(b, end - b);
}

bool blocks_split(std::string_view word) {
  if (word.empty()) return false;
  if (abbreviations().count(std::string(word))) return true;
  if (word.size() == 1 && std::isalpha(static_cast<unsigned char>(word[0]))) return true;  // initials
  if (word.size() <= 3 && std::all_of(word.begin(), word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return true;  // ordinals
  return false;
}

void push_trimmed(std::string_view s, size_t b, size_t e, std::vector<SentenceSpan>& out) {
  while (b < e && (is_space(static_cast<unsigned char>(s[b])) || s[b] == '\n')) ++b;
  while (e > b && (is_space(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == '\n')) --e;
  if (b < e) out.push_back({b, e});
}

}  // namespace

std::vector<SentenceSpan> split_sentences(std::string_view s) { return split_sentences(s, {}); }

std::vector<SentenceSpan> split_sentences(std::string_view s, const std::vector<size_t>& starts) {
  std::vector<SentenceSpan> out;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    if (s[i] == '\n') {
      push_trimmed(s, start, i, out);
      start = ++i;
      continue;
    }
    const bool ellipsis = s.substr(i, 3) == "\xE2\x80\xA6";
    if (s[i] == '.' || s[i] == '!' || s[i] == '?' || ellipsis) {
      const size_t mark = i;
      i += ellipsis ? 3 : 1;
      while (i < s.size() && (s[i] == '.' || s[i] == '!' || s[i] == '?')) ++i;
      size_t len;
      while (i < s.size() && is_closing(s, i, &len)) i += len;
      size_t j = i;
      while (j < s.size() && is_space(static_cast<unsigned char>(s[j]))) ++j;
      if (j > i && j < s.size() && s[j] != '\n' &&
          (starts_sentence(s, j) || std::binary_search(starts.begin(), starts.end(), j)) &&
          !(s[mark] == '.' && i == mark + 1 && blocks_split(word_before(s, mark)))) {
        push_trimmed(s, start, i, out);
        start = j;
      }
      continue;
    }
    i += char_length(s, i);
  }
  push_trimmed(s, start, s.size(), out);
  return out;
}

}  // namespace tformer
