#include "text/passthrough.h"

#include <algorithm>
#include <cctype>
#include <cmath>

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

  // Words (between whitespace) without their opening and closing punctuation: URLs, e-mail
  // addresses and words with a digit (numbers, times, dates, "COVID-19") go whole.
  for (size_t i = 0; i < n;) {
    if (is_space(cps[i].value)) { ++i; continue; }
    size_t j = i;
    while (j < n && !is_space(cps[j].value)) ++j;
    size_t b = i, e = j;
    while (b < e && is_edge_punct(cps[b].value)) ++b;
    while (e > b && is_edge_punct(cps[e - 1].value)) --e;
    if (b < e) {
      const std::string_view word = sentence.substr(cps[b].begin, cps[e - 1].end - cps[b].begin);
      bool digit = false;
      for (size_t k = b; k < e; ++k) digit = digit || is_digit(cps[k].value);
      if (is_url(word) || is_email(word) || digit) {
        // An ordinal's dot ("am 1. Mai") stays with its number, unless it ends the sentence.
        if (digit && e < j && cps[e].value == '.' && j < n) ++e;
        for (size_t k = b; k < e; ++k) keep[k] = true;
        // A currency sign or unit standing apart next to a number ("12,50 €", "$ 5") goes with it.
        if (digit) {
          if (j + 1 < n && is_space(cps[j].value) && is_currency_or_unit(cps[j + 1].value) &&
              (j + 2 >= n || is_space(cps[j + 2].value) || is_edge_punct(cps[j + 2].value))) {
            keep[j] = keep[j + 1] = true;
          }
          if (i >= 2 && is_space(cps[i - 1].value) && is_currency_or_unit(cps[i - 2].value) && (i == 2 || is_space(cps[i - 3].value))) {
            keep[i - 1] = keep[i - 2] = true;
          }
        }
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
  for (size_t i = 0; i < n;) {
    if (!keep[i]) {
      letters = letters || (!is_space(cps[i].value) && !is_edge_punct(cps[i].value));
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
  if (out.spans.empty()) {
    out.text = std::string(sentence);
    return out;
  }
  if (!letters) {  // only numbers, symbols, ...: nothing for the model
    out.text = std::string(sentence);
    out.spans.clear();
    out.verbatim = true;
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

}  // namespace

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
  const std::vector<ByteRange>& pieces = target.tokens;
  const size_t T = pieces.size();

  // Where each source token's characters end in the cleaned sentence, whitespace not counted (a
  // token of whitespace only ends where the one before it did): the tokens that end at or before
  // a span are the ones wholly before it.
  std::vector<size_t> source_end;
  size_t end = 0;
  for (const ByteRange& r : source_tokens) {
    for (const CodePoint& c : decode_code_points(bytes(sentence.text, r)))
      if (!is_space(c.value)) end = r.begin + c.end;
    source_end.push_back(end);
  }

  struct Insert { size_t position; std::string text; size_t order; bool space_before; };
  std::vector<Insert> inserts;
  for (size_t s = 0; s < sentence.spans.size(); ++s) {
    const ProtectedSpan& span = sentence.spans[s];
    size_t k = 0;  // source tokens wholly before the span
    while (k < source_end.size() && source_end[k] <= span.at) ++k;
    const bool after = k > 0;
    const size_t anchor = after ? k - 1 : 0;
    size_t position = target_text.size();
    if (closes(sentence.text, span.at)) {
      // A span that closes the sentence closes the translation, before its closing punctuation:
      // the order of the last words differs between languages, so the word before the span is no
      // guide ("gefunden zu werden 😀." is "to be found 😀.", not "to be 😀 found.").
      position = closing_start(target_text);
    } else if (T > 0 && !source_tokens.empty()) {
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
        const double at = (double(anchor) + 0.5) / double(source_tokens.size()) * double(T) - 0.5;
        best = size_t(std::clamp<long>(std::lround(at), 0L, long(T) - 1));
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
