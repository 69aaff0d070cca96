#include "text/passthrough.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "text/attended_tokens.h"
#include "util/utf8.h"

namespace tformer {
namespace {

bool is_space(char32_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xA0 || c == 0x202F || c == 0x3000; }
bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_ascii_letter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Pictographs and emoji (with their flags and keycaps), dingbats, arrows and technical symbols.
bool is_emoji(char32_t c) {
  return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2300 && c <= 0x23FF) ||
         (c >= 0x2B00 && c <= 0x2BFF) || (c >= 0x2190 && c <= 0x21FF) || c == 0x3030 || c == 0x303D;
}
// What continues an emoji: zero-width joiner, variation selectors, skin tones, keycap, tags.
bool is_emoji_joiner(char32_t c) {
  return c == 0x200D || c == 0xFE0F || c == 0xFE0E || (c >= 0x1F3FB && c <= 0x1F3FF) || c == 0x20E3 || (c >= 0xE0020 && c <= 0xE007F);
}
// Currency signs and units written apart from a number ("12,50 €", "50 %"): nothing to translate.
bool is_currency_or_unit(char32_t c) {
  return c == 0x20AC || c == '$' || c == 0xA3 || c == 0xA5 || c == 0x20B9 || c == '%' || c == 0x2030 || c == 0xB0;
}
// Punctuation that may close or open a word without being part of a URL, an address or a number.
bool is_edge_punct(char32_t c) {
  return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')' || c == '(' || c == '[' || c == ']' ||
         c == '"' || c == '\'' || c == 0xBB || c == 0xAB || c == 0x201C || c == 0x201D || c == 0x201E || c == 0x2018 || c == 0x2019;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_url(std::string_view w) {
  std::string lower(w);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return (starts_with(lower, "http://") || starts_with(lower, "https://") || starts_with(lower, "ftp://")) ? w.size() > 8
         : starts_with(lower, "www.") && w.size() > 6 && lower.find('.', 4) != std::string::npos;
}

bool is_email(std::string_view w) {
  const size_t at = w.find('@');
  if (at == 0 || at == std::string_view::npos || w.find('@', at + 1) != std::string_view::npos) return false;
  const size_t dot = w.rfind('.');
  if (dot == std::string_view::npos || dot < at + 2 || w.size() - dot < 3) return false;
  for (size_t i = 0; i < w.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(w[i]);
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '@')) return false;
  }
  for (size_t i = dot + 1; i < w.size(); ++i)
    if (!std::isalpha(static_cast<unsigned char>(w[i]))) return false;
  return true;
}

}  // namespace

ProtectedSentence protect(std::string_view sentence, const std::function<bool(char32_t)>& unknown) {
  const std::vector<CodePoint> cps = decode_code_points(sentence);
  const size_t n = cps.size();
  std::vector<bool> keep(n, false);  // code points taken out

  // Words (between whitespace) without their opening and closing punctuation: URLs and e-mail
  // addresses go whole, and so do words with a digit and an emoji part (a keycap "1️⃣"). Other
  // words with a digit (numbers, times, dates, ordinals, "COVID-19") stay for the model, which
  // writes them in the grammar of its sentence ("seit dem 19. Jahrhundert" -> "since the 19th
  // century"; taken out, they left a hole it filled badly: "in the 19. region of the years");
  // restore() checks that the translation has them and puts back those it lost.
  std::vector<bool> number_word(n, false);  // code points of such words
  // Digits in a row of words ("0171 2345678", "+49 30 1234567") are one code, which no model
  // writes back whole: it goes whole, as a URL does.
  {
    struct Bare { size_t i, j; bool open, close; };  // a word of digits (a leading '+'), punctuation on either side
    std::vector<Bare> words;
    for (size_t i = 0; i < n;) {
      if (is_space(cps[i].value)) { ++i; continue; }
      size_t j = i;
      while (j < n && !is_space(cps[j].value)) ++j;
      size_t b = i, e = j;
      while (b < e && is_edge_punct(cps[b].value)) ++b;
      while (e > b && is_edge_punct(cps[e - 1].value)) --e;
      bool bare = b < e;
      for (size_t k = b; k < e && bare; ++k) bare = is_digit(cps[k].value) || (k == b && cps[k].value == '+' && e - b > 1);
      words.push_back(bare ? Bare{b, e, b > i, e < j} : Bare{0, 0, true, true});
      i = j;
    }
    for (size_t w = 0; w < words.size();) {
      size_t last = w;
      while (last + 1 < words.size() && words[last].j > words[last].i && !words[last].close && words[last + 1].j > words[last + 1].i &&
             !words[last + 1].open)
        ++last;
      // Thousands grouped by spaces ("25 000 Euro") are a number, which the model writes; so are
      // numbers side by side ("im Jahr 2019 100 Gäste"). A code has a word with a leading '+' or
      // '0', or of five digits or more.
      bool grouped = last > w && words[w].j - words[w].i <= 3 && cps[words[w].i].value != '+';
      for (size_t k = w + 1; k <= last && grouped; ++k) grouped = words[k].j - words[k].i == 3;
      bool code = false;
      for (size_t k = w; k <= last && last > w; ++k)
        code = code || cps[words[k].i].value == '+' || cps[words[k].i].value == '0' || words[k].j - words[k].i >= 5;
      if (last > w && !grouped && code)
        for (size_t k = words[w].i; k < words[last].j; ++k) keep[k] = true;
      w = last + 1;
    }
  }
  for (size_t i = 0; i < n;) {
    if (is_space(cps[i].value)) { ++i; continue; }
    size_t j = i;
    while (j < n && !is_space(cps[j].value)) ++j;
    size_t b = i, e = j;
    while (b < e && is_edge_punct(cps[b].value)) ++b;
    while (e > b && is_edge_punct(cps[e - 1].value)) --e;
    if (b < e) {
      const std::string_view word = sentence.substr(cps[b].begin, cps[e - 1].end - cps[b].begin);
      bool digit = false, emoji = false;
      for (size_t k = b; k < e; ++k) {
        digit = digit || is_digit(cps[k].value);
        emoji = emoji || is_emoji(cps[k].value) || is_emoji_joiner(cps[k].value);
      }
      if (keep[b]) {  // a code of digit words, taken whole above
      } else if (is_url(word) || is_email(word) || (digit && emoji)) {
        // An ordinal's dot ("am 1. Mai") stays with its number, unless it ends the sentence.
        if (digit && e < j && cps[e].value == '.' && j < n) ++e;
        for (size_t k = b; k < e; ++k) keep[k] = true;
      } else if (digit) {
        for (size_t k = i; k < j; ++k) number_word[k] = true;
      }
    }
    i = j;
  }
  // Emoji and symbols, and characters the vocabulary lacks, wherever they are.
  for (size_t i = 0; i < n; ++i) {
    const char32_t c = cps[i].value;
    if (keep[i] || is_space(c)) continue;
    if (is_emoji(c) || ((c >= 0x80 || !(is_ascii_letter(c) || is_digit(c))) && unknown(c))) {
      keep[i] = true;
      while (i + 1 < n && (is_emoji_joiner(cps[i + 1].value) || (cps[i].value == 0x200D && is_emoji(cps[i + 1].value)))) keep[++i] = true;
    }
  }

  ProtectedSentence out;
  bool letters = false;  // anything left to translate
  bool numbers = false;  // words with a digit left in
  for (size_t i = 0; i < n;) {
    if (!keep[i]) {
      numbers = numbers || number_word[i];
      letters = letters || (!is_space(cps[i].value) && !is_edge_punct(cps[i].value) && !number_word[i] &&
                            !is_currency_or_unit(cps[i].value));
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && keep[j]) ++j;
    ProtectedSpan span;
    span.text = std::string(sentence.substr(cps[i].begin, cps[j - 1].end - cps[i].begin));
    span.from = cps[i].begin;
    span.space_before = i == 0 || is_space(cps[i - 1].value);
    span.space_after = j < n && is_space(cps[j].value);
    out.spans.push_back(std::move(span));
    i = j;
  }
  if (out.spans.empty() && !numbers) {
    out.text = std::string(sentence);
    return out;
  }
  if (!letters) {  // only numbers, symbols, ...: nothing for the model
    out.text = std::string(sentence);
    out.spans.clear();
    out.verbatim = true;
    return out;
  }
  if (out.spans.empty()) {
    out.text = std::string(sentence);
    out.numbers = number_runs(out.text);
    return out;
  }
  // The cleaned text: the spans removed, and with each the whitespace that would be doubled.
  size_t span_index = 0;
  for (size_t i = 0; i < n;) {
    if (!keep[i]) {
      out.text.append(sentence.substr(cps[i].begin, cps[i].end - cps[i].begin));
      for (size_t b = cps[i].begin; b < cps[i].end; ++b) out.origin.push_back(b);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && keep[j]) ++j;
    // "ist ☀️ heute" -> "ist heute"; "12 Kinder" -> "Kinder"; "kostet 12 €." -> "kostet."
    const bool at_start = out.text.find_first_not_of(" \t") == std::string::npos;
    if (at_start || (!out.text.empty() && out.text.back() == ' '))
      while (j < n && is_space(cps[j].value)) ++j;
    if (j == n || (is_edge_punct(cps[j].value) && cps[j].value != '(' && cps[j].value != '['))
      while (!out.text.empty() && out.text.back() == ' ') {
        out.text.pop_back();
        out.origin.pop_back();
      }
    // Spans just before this one stood where the trimmed space was: keep them with it, in order.
    for (size_t k = 0; k < span_index; ++k) out.spans[k].at = std::min(out.spans[k].at, out.text.size());
    out.spans[span_index++].at = out.text.size();
    i = j;
  }
  out.numbers = number_runs(out.text);
  return out;
}

namespace {

constexpr float kConfidentWeight = 0.5f;

// Punctuation that may close a sentence: after the last word, before the end.
bool is_closing_punct(char32_t c) {
  return c == '.' || c == '!' || c == '?' || c == 0x2026 || c == ')' || c == ']' || c == '"' || c == '\'' || c == 0xBB ||
         c == 0x201C || c == 0x201D || c == 0x2019 || c == 0x3002 || c == 0xFF01 || c == 0xFF1F;
}

// Whether nothing but spaces and closing punctuation follows `at` in `text`.
bool closes(std::string_view text, size_t at) {
  for (const CodePoint& c : decode_code_points(text.substr(at)))
    if (!is_space(c.value) && !is_closing_punct(c.value)) return false;
  return true;
}

// Where the closing punctuation at the end of `text` begins (the end when it has none).
size_t closing_start(std::string_view text) {
  size_t at = text.size();
  const std::vector<CodePoint> cps = decode_code_points(text);
  for (size_t i = cps.size(); i > 0 && (is_space(cps[i - 1].value) || is_closing_punct(cps[i - 1].value)); --i) at = cps[i - 1].begin;
  return at;
}

std::string_view bytes(const std::string& text, const ByteRange& r) { return std::string_view(text).substr(r.begin, r.size()); }

// A token that continues a word (letters or digits), as opposed to punctuation.
bool is_word_token(std::string_view token) {
  for (const CodePoint& c : decode_code_points(token))
    if (!is_edge_punct(c.value) && !is_space(c.value)) return true;
  return false;
}

// A token that starts a word: it stands for the whitespace before it too.
bool starts_word(std::string_view token) {
  const std::vector<CodePoint> cps = decode_code_points(token);
  return !cps.empty() && is_space(cps.front().value);
}

// The source tokens' ends: for each token, where its characters end in `text`, whitespace not
// counted (a token of whitespace only ends where the one before it did), so that the tokens that
// end at or before a byte are the ones wholly before it.
std::vector<size_t> source_ends(const std::string& text, const std::vector<ByteRange>& source_tokens) {
  std::vector<size_t> source_end;
  size_t end = 0;
  for (const ByteRange& r : source_tokens) {
    for (const CodePoint& c : decode_code_points(bytes(text, r)))
      if (!is_space(c.value)) end = r.begin + c.end;
    source_end.push_back(end);
  }
  return source_end;
}

// Where a span goes in the translation: it stood at byte `at` of the model's sentence `text`
// (before the source tokens that end past it), and the sentence resumes at byte `resume` after it.
// `after`: it goes after a word of the translation (else before one, or at the start).
struct Placement {
  size_t position;
  bool after;
};
Placement place(const std::string& text, size_t at, size_t resume, const std::vector<size_t>& source_end,
                const AnnotatedSentence& target, const std::vector<float>& alignment, size_t source_stride,
                size_t source_offset) {
  const std::string& target_text = target.text;
  const std::vector<ByteRange>& pieces = target.tokens;
  const size_t T = pieces.size(), S = source_end.size();
  size_t k = 0;  // source tokens wholly before the span
  while (k < S && source_end[k] <= at) ++k;
  const bool after = k > 0;
  const size_t anchor = after ? k - 1 : 0;
  size_t position = target_text.size();
  if (closes(text, resume)) {
    // A span that closes the sentence closes the translation, before its closing punctuation:
    // the order of the last words differs between languages, so the word before the span is no
    // guide ("gefunden zu werden 😀." is "to be found 😀.", not "to be 😀 found.").
    position = closing_start(target_text);
  } else if (T > 0 && S > 0) {
    // The target token that looked most at the anchor, where that is clear (a weight of at least
    // kConfidentWeight: models trained with guided alignment, as Marian's are, give such peaks).
    // Otherwise the same relative place in the translation: the cross-attention of small models
    // trained without alignment is close to uniform and says little about where a word went.
    size_t best = T;
    if (!alignment.empty() && alignment.size() >= T * source_stride && source_offset + anchor < source_stride) {
      float top = kConfidentWeight;
      for (size_t t = 0; t < T; ++t) {
        const float w = alignment[t * source_stride + source_offset + anchor];
        if (w >= top) { top = w; best = t; }
      }
    }
    if (best == T) {
      const double rel = (double(anchor) + 0.5) / double(S) * double(T) - 0.5;
      best = size_t(std::clamp<long>(std::lround(rel), 0L, long(T) - 1));
    }
    if (after) {
      // After the end of that word (its letters, not the punctuation after it).
      size_t t = best;
      while (t + 1 < T && !starts_word(bytes(target_text, pieces[t + 1])) && is_word_token(bytes(target_text, pieces[t + 1]))) ++t;
      position = pieces[t].end;
    } else {
      size_t t = best;
      while (t > 0 && !starts_word(bytes(target_text, pieces[t]))) --t;
      position = pieces[t].begin;
      if (position < target_text.size() && target_text[position] == ' ') ++position;  // the word itself
    }
  } else if (!after) {
    position = 0;
  }
  return {position, after};
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

namespace {

// The bytes of a mark that may group a number's thousands at `at` besides '.' and ',': a space, a
// no-break space or a narrow no-break space ("25 000"), an apostrophe ("95'000", Swiss); 0 for none.
size_t group_space(std::string_view text, size_t at) {
  if (text.substr(at, 1) == " " || text.substr(at, 1) == "'") return 1;
  if (text.substr(at, 2) == "\xC2\xA0") return 2;
  if (text.substr(at, 3) == "\xE2\x80\xAF" || text.substr(at, 3) == "\xE2\x80\x99") return 3;
  return 0;
}

// The digits of a number written in thousands groups (three digits in each group after the first,
// one separator throughout: '.', ',' or a space as group_space() reads it), or "" for any other.
std::string ungrouped(std::string_view number) {
  std::string digits;
  std::string_view separator;
  size_t i = 0;
  while (i < number.size() && is_ascii_digit(number[i])) digits += number[i++];
  if (digits.empty()) return "";
  while (i < number.size()) {
    const size_t space = group_space(number, i);
    const size_t width = space ? space : number[i] == '.' || number[i] == ',' ? 1 : 0;
    if (!width || (!separator.empty() && number.substr(i, width) != separator)) return "";
    separator = number.substr(i, width);
    i += width;
    size_t group = 0;
    while (i < number.size() && is_ascii_digit(number[i])) digits += number[i++], ++group;
    if (group != 3) return "";
  }
  return separator.empty() ? "" : digits;
}

}  // namespace

std::vector<ByteRange> number_runs(std::string_view text) {
  std::vector<ByteRange> out;
  for (size_t i = 0; i < text.size();) {
    if (!is_ascii_digit(text[i])) { ++i; continue; }
    size_t j = i;
    while (j < text.size() && is_ascii_digit(text[j])) ++j;
    if (j - i <= 3) {
      // Thousands grouped by spaces or apostrophes ("25 000", "1 000 000", "95'000"): one number.
      for (size_t space; (space = group_space(text, j)) != 0;) {
        size_t k = j + space, digits = 0;
        while (k < text.size() && is_ascii_digit(text[k])) ++k, ++digits;
        if (digits != 3) break;
        j = k;
      }
    }
    while (j + 1 < text.size() && (text[j] == '.' || text[j] == ',' || text[j] == ':') && is_ascii_digit(text[j + 1])) {
      ++j;
      while (j < text.size() && is_ascii_digit(text[j])) ++j;
    }
    out.push_back({i, j});
    i = j;
  }
  return out;
}

bool same_number(std::string_view number, std::string_view written) {
  if (number == written) return true;
  if (number.size() == written.size()) {
    bool swapped = true;
    for (size_t i = 0; i < number.size() && swapped; ++i) {
      const char a = number[i], b = written[i];
      swapped = a == b ? a != '.' && a != ',' : (a == '.' && b == ',') || (a == ',' && b == '.');
    }
    if (swapped) return true;
  }
  // The same thousands, grouped otherwise or not at all ("25 000", "25,000", "25000").
  const std::string a = ungrouped(number), b = ungrouped(written);
  return (!a.empty() && (a == written || a == b)) || (!b.empty() && b == number);
}

char decimal_mark(std::string_view language) {
  const std::string_view primary = language.substr(0, std::min(language.find_first_of("-_"), language.size()));
  static const char* const kPoint[] = {"en", "zh", "ja", "ko", "he", "th", "hi", "ms", "ga", "mt", "cy"};
  static const char* const kComma[] = {"de", "fr", "es", "it", "nl", "pt", "ru", "uk", "pl", "cs", "sk", "sl", "hr", "sr", "bs",
                                       "bg", "ro", "hu", "tr", "el", "da", "sv", "nb", "nn", "no", "fi", "et", "lv", "lt", "is",
                                       "ca", "gl", "eu", "be", "id", "vi", "az", "kk", "fa"};
  for (const char* l : kPoint)
    if (primary == l) return '.';
  for (const char* l : kComma)
    if (primary == l) return ',';
  return 0;
}

std::string with_decimal_mark(std::string_view number, char from, char to) {
  std::string out(number);
  if (!from || !to || from == to) return out;
  const char group = from == '.' ? ',' : '.';
  // Thousands groups (each of three digits after the first), then at most one fraction.
  size_t i = 0, groups = 0;
  while (i < number.size() && is_ascii_digit(number[i])) ++i;
  const size_t first = i;
  while (i < number.size() && number[i] == group) {
    size_t j = i + 1;
    while (j < number.size() && is_ascii_digit(number[j])) ++j;
    if (j - i - 1 != 3) return out;
    i = j;
    ++groups;
  }
  bool fraction = false;
  if (i < number.size() && number[i] == from) {
    size_t j = i + 1;
    while (j < number.size() && is_ascii_digit(number[j])) ++j;
    if (j == i + 1) return out;
    i = j;
    fraction = true;
  }
  if (first == 0 || i != number.size() || (!groups && !fraction) || (groups && first > 3)) return out;
  for (char& c : out) c = c == from ? to : c == group ? from : c;
  return out;
}

AnnotatedSentence apply_edits(const AnnotatedSentence& sentence, const std::vector<TextEdit>& edits) {
  if (edits.empty()) return sentence;
  const std::string& text = sentence.text;
  AnnotatedSentence out;
  size_t at = 0;
  for (const TextEdit& e : edits) {
    out.text.append(text, at, e.begin - at);
    out.text += e.text;
    at = e.end;
  }
  out.text.append(text, at, std::string::npos);
  // Byte x of the sentence in the result: inside a replaced part, the end of its replacement; at a
  // place where something was put in, after it unless `before_insertions`.
  auto moved = [&](size_t x, bool before_insertions) {
    long delta = 0;
    for (const TextEdit& e : edits) {
      if (e.begin < x && x < e.end) return size_t(long(e.begin) + delta) + e.text.size();
      const bool insertion = e.begin == e.end;
      if (e.end < x || (e.end == x && !(insertion && before_insertions)))
        delta += long(e.text.size()) - long(e.end - e.begin);
      else if (e.begin >= x)
        break;
    }
    return size_t(long(x) + delta);
  };
  const size_t T = sentence.tokens.size();
  out.tokens.reserve(T);
  for (size_t t = 0; t < T; ++t) {
    const ByteRange& r = sentence.tokens[t];
    ByteRange n;
    n.begin = t > 0 && r.begin == sentence.tokens[t - 1].end ? out.tokens[t - 1].end : moved(r.begin, t == 0);
    n.end = std::max(n.begin, moved(r.end, false));
    out.tokens.push_back(n);
  }
  return out;
}

AnnotatedSentence repair_numbers(const ProtectedSentence& sentence, const std::vector<ByteRange>& source_tokens,
                                 const AnnotatedSentence& target, const std::vector<float>& alignment, size_t source_stride,
                                 size_t source_offset, std::pair<char, char> marks) {
  const std::vector<ByteRange>& numbers = sentence.numbers;
  if (numbers.empty() || sentence.verbatim) return target;
  const std::string& text = sentence.text;
  const std::string& out_text = target.text;
  const std::vector<ByteRange> written = number_runs(out_text);
  auto number = [&](size_t m) { return bytes(text, numbers[m]); };
  auto output = [&](size_t w) { return bytes(out_text, written[w]); };

  // Each source number takes a number of the translation that writes it: first those written
  // alike, then those written the target language's way, so that "1.000 and 1,000" keep theirs.
  std::vector<bool> settled(numbers.size(), false), used(written.size(), false);
  for (int pass = 0; pass < 2; ++pass)
    for (size_t m = 0; m < numbers.size(); ++m)
      for (size_t w = 0; w < written.size() && !settled[m]; ++w)
        if (!used[w] && (pass == 0 ? number(m) == output(w) : same_number(number(m), output(w)))) settled[m] = used[w] = true;
  if (std::all_of(settled.begin(), settled.end(), [](bool b) { return b; })) return target;

  const size_t T = target.tokens.size(), S = source_tokens.size();
  const std::vector<size_t> points = attended_source_tokens(alignment, source_stride, source_offset, S, T, S);
  const std::vector<size_t> source_end = source_ends(text, source_tokens);

  std::vector<TextEdit> edits;
  std::vector<size_t> left_out;
  for (size_t m = 0; m < numbers.size(); ++m) {
    if (settled[m]) continue;
    const ByteRange& r = numbers[m];
    // Its source tokens: those whose characters overlap it.
    size_t lo = S, hi = S;
    for (size_t s = 0; s < S; ++s) {
      size_t b = source_tokens[s].begin;
      while (b < source_tokens[s].end && text[b] == ' ') ++b;
      if (b < r.end && r.begin < source_tokens[s].end && b < source_tokens[s].end) {
        if (lo == S) lo = s;
        hi = s;
      }
    }
    // A number of the translation that no source number has, whose tokens attend most to these
    // (the model's attempt at writing it: "0.4.05.2018", "A78"), is replaced by it.
    size_t pick = written.size(), pick_votes = 0;
    if (lo < S)
      for (size_t w = 0; w < written.size(); ++w) {
        if (used[w]) continue;
        size_t votes = 0;
        for (size_t t = 0; t < T; ++t)
          if (target.tokens[t].begin < written[w].end && written[w].begin < target.tokens[t].end && points[t] >= lo &&
              points[t] <= hi)
            ++votes;
        if (votes > pick_votes) { pick = w; pick_votes = votes; }
      }
    if (pick < written.size()) {
      used[pick] = true;
      edits.push_back({written[pick].begin, written[pick].end, with_decimal_mark(number(m), marks.first, marks.second)});
    } else {
      left_out.push_back(m);
    }
  }
  // A number left out is put in where a span that stood there would go (never inside a number of
  // the translation), apart from the words and numbers beside it.
  // Beside another number ("mindestens 250 100 Meter") it would read as one number in thousands
  // groups: it goes before the closing punctuation instead, else apart by a comma.
  auto digit_at = [&](size_t i) { return i < out_text.size() && is_ascii_digit(out_text[i]); };
  std::vector<size_t> put_at;
  auto beside_number = [&](size_t at) {
    return std::find(put_at.begin(), put_at.end(), at) != put_at.end() || (at > 0 && digit_at(at - 1)) ||
           (at > 1 && out_text[at - 1] == ' ' && digit_at(at - 2)) || digit_at(at) || (out_text.substr(at, 1) == " " && digit_at(at + 1));
  };
  for (size_t m : left_out) {
    const ByteRange& r = numbers[m];
    const Placement p = place(text, r.begin, r.end, source_end, target, alignment, source_stride, source_offset);
    size_t at = p.position;
    bool after = p.after, apart = true;
    for (const ByteRange& w : written)
      if (w.begin < at && at < w.end) at = w.end;
    if (beside_number(at)) {
      const size_t end = closing_start(out_text);
      if (end > 0 && !beside_number(end)) {
        at = end;
        after = true;
      } else {
        apart = false;
      }
    }
    put_at.push_back(at);
    std::string put = with_decimal_mark(number(m), marks.first, marks.second);
    const bool word_before = at > 0 && out_text[at - 1] != ' ', word_after = at < out_text.size() && out_text[at] != ' ';
    const bool opening = at > 0 && (out_text[at - 1] == '(' || out_text[at - 1] == '[');
    if ((after && !opening) || (word_before && is_ascii_digit(out_text[at - 1]))) put = (at > 0 ? (apart ? " " : ", ") : "") + put;
    else if (word_after) put += apart ? " " : ", ";
    if (word_after && is_ascii_digit(out_text[at]) && put.back() != ' ') put += " ";
    edits.push_back({at, at, std::move(put)});
  }
  // In order; what is put in at a place comes before a number replaced from there.
  std::stable_sort(edits.begin(), edits.end(),
                   [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin || (a.begin == b.begin && a.end < b.end); });
  return apply_edits(target, edits);
}

std::string restore(const ProtectedSentence& sentence, const std::vector<ByteRange>& source_tokens,
                    const AnnotatedSentence& target, const std::vector<float>& alignment, size_t source_stride,
                    size_t source_offset, std::vector<PutBack>* put_back) {
  if (put_back) put_back->clear();
  if (sentence.verbatim) {
    if (put_back) put_back->push_back({0, sentence.text.size(), {0, sentence.text.size()}, 0});
    return sentence.text;
  }
  const std::string& target_text = target.text;
  if (sentence.spans.empty()) return target_text;
  const std::vector<size_t> source_end = source_ends(sentence.text, source_tokens);

  struct Insert { size_t position; std::string text; size_t order; bool space_before; };
  std::vector<Insert> inserts;
  for (size_t s = 0; s < sentence.spans.size(); ++s) {
    const ProtectedSpan& span = sentence.spans[s];
    const Placement p = place(sentence.text, span.at, span.at, source_end, target, alignment, source_stride, source_offset);
    const size_t position = p.position;
    const bool after = p.after;
    std::string text = span.text;
    if (after) {
      if (span.space_before && position > 0) text = " " + text;
    } else if (span.space_after && position < target_text.size()) {
      text += " ";
    }
    inserts.push_back({position, std::move(text), s, after && span.space_before});
  }
  std::stable_sort(inserts.begin(), inserts.end(), [](const Insert& a, const Insert& b) { return a.position < b.position; });
  std::string out;
  size_t at = 0;
  for (size_t n = 0; n < inserts.size(); ++n) {
    const Insert& i = inserts[n];
    out.append(target_text, at, i.position - at);
    // Spans side by side at the very start (a translation that is empty before them) keep the
    // space that stood between them: "0171 2345678", not "01712345678".
    const size_t added_from = out.size();
    if (i.position == 0 && i.space_before && n > 0 && inserts[n - 1].position == 0 && !out.empty() && out.back() != ' ') out += ' ';
    out += i.text;
    at = i.position;
    if (put_back) {
      const ProtectedSpan& span = sentence.spans[i.order];
      const size_t span_at = out.size() - i.text.size() + i.text.find(span.text);
      put_back->push_back({i.position, out.size() - added_from, {span_at, span_at + span.text.size()}, span.from});
    }
  }
  out.append(target_text, at, std::string::npos);
  return out;
}

}  // namespace tformer
