#include "html/tokenizer.h"

#include <algorithm>

namespace tformer::html {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) { return lower(c); });
  return out;
}

bool starts_with_ascii_case_insensitive(std::string_view s, size_t at, std::string_view word) {
  if (s.size() - at < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (lower(s[at + k]) != lower(word[k])) return false;
  return true;
}

// Whether the '<' at `at` starts markup in the data state (otherwise it is text).
bool starts_markup(std::string_view s, size_t at) {
  if (at + 1 >= s.size()) return false;
  const char c = s[at + 1];
  return c == '!' || c == '?' || is_alpha(c) || (c == '/' && at + 2 < s.size());
}

// The rest of the input belongs to the token: browsers end it at the end of the input.
Token& incomplete(Token& t, std::string_view s) {
  t.complete = false;
  t.end = s.size();
  return t;
}

Token bogus_comment(std::string_view s, size_t at, size_t data_at) {
  Token t;
  t.kind = Token::kBogusComment;
  t.begin = at;
  const size_t gt = s.find('>', data_at);
  if (gt == std::string_view::npos) {
    t.data = s.substr(data_at);
    return incomplete(t, s);
  }
  t.data = s.substr(data_at, gt - data_at);
  t.end = gt + 1;
  return t;
}

// "<!--" at `at`: the comment states (comment start, comment, the less-than-sign states, comment
// end dash, comment end, comment end bang). Its data is a prefix of the source after "<!--": the
// characters each state appends, up to `data_end`; dashes a state holds back are appended only
// when something other than the comment's end follows them.
Token comment(std::string_view s, size_t at) {
  enum State { kStart, kStartDash, kComment, kLt, kLtBang, kLtBangDash, kLtBangDashDash, kEndDash, kEnd, kEndBang };
  Token t;
  t.kind = Token::kComment;
  t.begin = at;
  const size_t data_begin = at + 4;
  size_t i = data_begin, data_end = data_begin;
  State state = kStart;
  for (;;) {
    if (i >= s.size()) {
      t.data = s.substr(data_begin, data_end - data_begin);
      return incomplete(t, s);
    }
    const char c = s[i];
    bool ends = false;
    switch (state) {
      case kStart:
        if (c == '-') state = kStartDash, ++i;
        else if (c == '>') ends = true;  // "<!-->"
        else state = kComment;
        break;
      case kStartDash:
        if (c == '-') state = kEnd, ++i;
        else if (c == '>') ends = true;  // "<!--->"
        else data_end = i, state = kComment;
        break;
      case kComment:
        if (c == '<') state = kLt, data_end = ++i;
        else if (c == '-') state = kEndDash, ++i;
        else data_end = ++i;
        break;
      case kLt:
        if (c == '!') state = kLtBang, data_end = ++i;
        else if (c == '<') data_end = ++i;
        else state = kComment;
        break;
      case kLtBang:
        if (c == '-') state = kLtBangDash, ++i;
        else state = kComment;
        break;
      case kLtBangDash:
        if (c == '-') state = kLtBangDashDash, ++i;
        else state = kEndDash;
        break;
      case kLtBangDashDash:
        state = kEnd;  // "<!--" inside a comment: a parse error, read as the comment's end would be
        break;
      case kEndDash:
        if (c == '-') state = kEnd, ++i;
        else data_end = i, state = kComment;
        break;
      case kEnd:
        if (c == '>') ends = true;
        else if (c == '!') state = kEndBang, ++i;
        else if (c == '-') data_end = i, ++i;  // one more dash: the first one held back is data
        else data_end = i, state = kComment;
        break;
      case kEndBang:
        if (c == '-') data_end = i, state = kEndDash, ++i;
        else if (c == '>') ends = true;  // "--!>"
        else data_end = i, state = kComment;
        break;
    }
    if (ends) {
      t.data = s.substr(data_begin, data_end - data_begin);
      t.end = i + 1;
      return t;
    }
  }
}

// A start or end tag: `at` is its '<', `name_at` the first letter of its name. The tag name,
// attribute and self-closing states.
Token tag(std::string_view s, size_t at, size_t name_at, bool end_tag) {
  Token t;
  t.kind = end_tag ? Token::kEndTag : Token::kStartTag;
  t.begin = at;
  const size_t n = s.size();
  size_t i = name_at;
  while (i < n && !is_space(s[i]) && s[i] != '/' && s[i] != '>') ++i;
  t.written_name = s.substr(name_at, i - name_at);
  t.name = lower(t.written_name);
  size_t item_end = i;  // the end of the name or of the last attribute
  enum State { kBeforeName, kName, kAfterName, kBeforeValue, kAfterQuotedValue, kSelfClosing } state = kBeforeName;
  if (i < n && s[i] == '/') state = kSelfClosing, ++i;
  std::vector<Attribute> attributes;
  size_t name_start = 0;
  auto start_attribute = [&] {
    attributes.emplace_back();
    attributes.back().before = s.substr(item_end, i - item_end);
    name_start = i;
  };
  for (;;) {
    if (i >= n) return incomplete(t, s);
    const char c = s[i];
    bool emit = false;
    switch (state) {
      case kBeforeName:
        if (is_space(c)) ++i;
        else if (c == '/' || c == '>') state = kAfterName;
        else {
          start_attribute();
          if (c == '=') ++i;  // a name may start with '='
          state = kName;
        }
        break;
      case kName:
        while (i < n && !is_space(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=') ++i;
        attributes.back().written = s.substr(name_start, i - name_start);
        item_end = i;
        if (i < n && s[i] == '=') ++i, state = kBeforeValue;
        else state = kAfterName;
        break;
      case kAfterName:
        if (is_space(c)) ++i;
        else if (c == '/') ++i, state = kSelfClosing;
        else if (c == '=') ++i, state = kBeforeValue;
        else if (c == '>') emit = true;
        else start_attribute(), state = kName;
        break;
      case kBeforeValue: {
        if (is_space(c)) {
          ++i;
          break;
        }
        Attribute& a = attributes.back();
        a.has_value = true;
        if (c == '"' || c == '\'') {
          const size_t q = s.find(c, i + 1);
          if (q == std::string_view::npos) return incomplete(t, s);
          a.quote = c;
          a.value = s.substr(i + 1, q - i - 1);
          i = item_end = q + 1;
          state = kAfterQuotedValue;
        } else if (c == '>') {
          emit = true;  // "name=>": an empty value
        } else {
          const size_t b = i;
          while (i < n && !is_space(s[i]) && s[i] != '>') ++i;
          a.value = s.substr(b, i - b);
          item_end = i;
          state = kBeforeName;
        }
        break;
      }
      case kAfterQuotedValue:
        if (c == '/') ++i, state = kSelfClosing;
        else if (c == '>') emit = true;
        else state = kBeforeName;
        break;
      case kSelfClosing:
        if (c == '>') {
          t.self_closing = true;
          t.tail = s.substr(item_end, i - 1 - item_end);
          t.end = i + 1;
        } else {
          state = kBeforeName;
        }
        break;
    }
    if (t.self_closing) break;
    if (emit) {
      t.tail = s.substr(item_end, i - item_end);
      t.end = i + 1;
      break;
    }
  }
  if (!end_tag) {
    for (Attribute& a : attributes) {
      a.name = lower(a.written);
      bool repeated = false;
      for (const Attribute& b : t.attributes) repeated = repeated || b.name == a.name;
      if (!repeated) t.attributes.push_back(std::move(a));
    }
  }
  return t;
}

// The name of the end tag "</name" at `at` when it is followed by whitespace, '/' or '>' (the
// temporary buffer of the RCDATA, RAWTEXT and script data end tag states); empty otherwise.
bool appropriate_end_tag(std::string_view s, size_t at, std::string_view name) {
  if (s.compare(at, 2, "</") != 0) return false;
  size_t j = at + 2;
  while (j < s.size() && is_alpha(s[j])) ++j;
  if (j >= s.size() || !(is_space(s[j]) || s[j] == '/' || s[j] == '>')) return false;
  return j - at - 2 == name.size() && starts_with_ascii_case_insensitive(s, at + 2, name);
}

// The script data states: "<!--" starts the escaped states, in which "<script" starts the
// double-escaped ones, where "</script" does not end the element.
size_t script_data_end(std::string_view s, size_t at) {
  const size_t n = s.size();
  enum State { kData, kEscaped, kDoubleEscaped } state = kData;
  int dashes = 0;  // dashes just read in an escaped state (two or more: "-->" would end it)
  for (size_t i = at; i < n;) {
    const char c = s[i];
    if (state == kData) {
      if (c != '<') {
        ++i;
      } else if (appropriate_end_tag(s, i, "script")) {
        return i;
      } else if (s.compare(i, 4, "<!--") == 0) {
        state = kEscaped, dashes = 2, i += 4;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '-') {
      ++dashes, ++i;
      continue;
    }
    if (c == '>' && dashes >= 2) {
      state = kData, dashes = 0, ++i;
      continue;
    }
    dashes = 0;
    if (c != '<') {
      ++i;
      continue;
    }
    if (state == kEscaped) {
      if (appropriate_end_tag(s, i, "script")) return i;
      size_t j = i + 1;
      while (j < n && is_alpha(s[j])) ++j;
      if (j > i + 1 && j < n && (is_space(s[j]) || s[j] == '/' || s[j] == '>') && j - i - 1 == 6 &&
          starts_with_ascii_case_insensitive(s, i + 1, "script")) {
        state = kDoubleEscaped, i = j + 1;  // the character after the name is consumed with it
        continue;
      }
      i = j > i + 1 ? j : i + 1;
    } else {
      size_t j = i + 1;
      if (j < n && s[j] == '/') {
        ++j;
        const size_t b = j;
        while (j < n && is_alpha(s[j])) ++j;
        if (j < n && (is_space(s[j]) || s[j] == '/' || s[j] == '>') && j - b == 6 &&
            starts_with_ascii_case_insensitive(s, b, "script")) {
          state = kEscaped, i = j + 1;
          continue;
        }
      }
      i = j;
    }
  }
  return n;
}

}  // namespace

Token read_token(std::string_view s, size_t at, bool cdata) {
  const size_t n = s.size();
  if (!(s[at] == '<' && starts_markup(s, at))) {
    Token t;
    t.kind = Token::kText;
    t.begin = at;
    size_t j = at + 1;
    while (j < n && !(s[j] == '<' && starts_markup(s, j))) ++j;
    t.end = j;
    return t;
  }
  const char c = s[at + 1];
  if (is_alpha(c)) return tag(s, at, at + 1, false);
  if (c == '?') return bogus_comment(s, at, at + 1);
  if (c == '/') {
    if (is_alpha(s[at + 2])) return tag(s, at, at + 2, true);
    if (s[at + 2] == '>') {
      Token t;
      t.kind = Token::kNothing;
      t.begin = at;
      t.end = at + 3;
      return t;
    }
    return bogus_comment(s, at, at + 2);
  }
  // '!': the markup declaration open state.
  if (s.compare(at + 2, 2, "--") == 0) return comment(s, at);
  if (starts_with_ascii_case_insensitive(s, at + 2, "doctype")) {
    Token t = bogus_comment(s, at, at + 2);  // every DOCTYPE state ends at the first '>'
    t.kind = Token::kDoctype;
    return t;
  }
  if (cdata && s.compare(at + 2, 7, "[CDATA[") == 0) {
    Token t;
    t.kind = Token::kCdata;
    t.begin = at;
    const size_t close = s.find("]]>", at + 9);
    if (close == std::string_view::npos) {
      t.data = s.substr(at + 9);
      return incomplete(t, s);
    }
    t.data = s.substr(at + 9, close - at - 9);
    t.end = close + 3;
    return t;
  }
  return bogus_comment(s, at, at + 2);
}

size_t content_end(std::string_view s, size_t at, std::string_view name, Content content) {
  switch (content) {
    case Content::kPlainText:
      return s.size();
    case Content::kScriptData:
      return script_data_end(s, at);
    case Content::kRcdata:
    case Content::kRawText:
      for (size_t i = s.find("</", at); i != std::string_view::npos; i = s.find("</", i + 1))
        if (appropriate_end_tag(s, i, name)) return i;
      return s.size();
  }
  return s.size();
}

}  // namespace tformer::html
