#include "html/html.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "tformer/error.h"
#include "tformer/html.h"

namespace tformer {
namespace {

bool one_of(std::string_view name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// Elements with no content and no end tag.
bool is_void(std::string_view n) {
  return one_of(n, {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                    "track", "wbr"});
}
// Elements that stay inside a sentence (phrasing content); every other element splits the text.
bool is_inline(std::string_view n) {
  return one_of(n, {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i",
                    "img", "input", "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong",
                    "sub", "sup", "time", "tt", "u", "var", "wbr"});
}
// Elements whose content is text up to their end tag, never markup.
bool is_raw_text(std::string_view n) {
  return one_of(n, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"});
}
// Elements never translated: raw text, and content that is not prose.
bool is_untranslatable(std::string_view n) {
  return is_raw_text(n) || one_of(n, {"template", "svg", "math", "object"});
}
bool is_code(std::string_view n) { return one_of(n, {"code", "pre", "kbd", "samp"}); }

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// Named character references: the ones markup and prose use most (a name outside this table
// stays as text, '&' and all).
uint32_t named_entity(std::string_view name) {
  static const struct {
    const char* name;
    uint32_t cp;
  } kEntities[] = {
      {"amp", '&'},       {"lt", '<'},        {"gt", '>'},        {"quot", '"'},      {"apos", '\''},
      {"nbsp", 0xA0},     {"copy", 0xA9},     {"reg", 0xAE},      {"trade", 0x2122},  {"hellip", 0x2026},
      {"mdash", 0x2014},  {"ndash", 0x2013},  {"lsquo", 0x2018},  {"rsquo", 0x2019},  {"ldquo", 0x201C},
      {"rdquo", 0x201D},  {"sbquo", 0x201A},  {"bdquo", 0x201E},  {"laquo", 0xAB},    {"raquo", 0xBB},
      {"euro", 0x20AC},   {"pound", 0xA3},    {"yen", 0xA5},      {"cent", 0xA2},     {"sect", 0xA7},
      {"deg", 0xB0},      {"plusmn", 0xB1},   {"times", 0xD7},    {"divide", 0xF7},   {"middot", 0xB7},
      {"bull", 0x2022},   {"para", 0xB6},     {"shy", 0xAD},      {"auml", 0xE4},     {"ouml", 0xF6},
      {"uuml", 0xFC},     {"Auml", 0xC4},     {"Ouml", 0xD6},     {"Uuml", 0xDC},     {"szlig", 0xDF},
      {"eacute", 0xE9},   {"Eacute", 0xC9},   {"egrave", 0xE8},   {"agrave", 0xE0},   {"aacute", 0xE1},
      {"iacute", 0xED},   {"oacute", 0xF3},   {"uacute", 0xFA},   {"ntilde", 0xF1},   {"ccedil", 0xE7},
      {"ecirc", 0xEA},    {"acirc", 0xE2},    {"ocirc", 0xF4},    {"icirc", 0xEE},    {"ucirc", 0xFB},
      {"euml", 0xEB},     {"iuml", 0xEF},     {"thinsp", 0x2009}, {"ensp", 0x2002},   {"emsp", 0x2003},
      {"zwj", 0x200D},    {"zwnj", 0x200C},   {"larr", 0x2190},   {"rarr", 0x2192},   {"hearts", 0x2665},
  };
  for (const auto& e : kEntities)
    if (name == e.name) return e.cp;
  return 0;
}

// The character reference at text[i] ('&'): its code point and length, or length 0 when there is
// none (the '&' is then text).
size_t entity_at(std::string_view text, size_t i, uint32_t* cp) {
  size_t j = i + 1;
  if (j < text.size() && text[j] == '#') {
    ++j;
    const bool hex = j < text.size() && (text[j] == 'x' || text[j] == 'X');
    if (hex) ++j;
    uint32_t value = 0;
    size_t digits = 0;
    for (; j < text.size(); ++j, ++digits) {
      const char c = text[j];
      int d = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) break;
      if (value <= 0x10FFFF) value = value * (hex ? 16 : 10) + uint32_t(d);  // beyond: stays invalid
    }
    if (!digits || j >= text.size() || text[j] != ';') return 0;
    *cp = value;
    return j + 1 - i;
  }
  while (j < text.size() && j - i <= 8 && ((text[j] >= 'a' && text[j] <= 'z') || (text[j] >= 'A' && text[j] <= 'Z') ||
                                           (text[j] >= '0' && text[j] <= '9')))
    ++j;
  if (j >= text.size() || text[j] != ';') return 0;
  *cp = named_entity(text.substr(i + 1, j - i - 1));
  return *cp ? j + 1 - i : 0;
}

struct Node {
  enum Kind { kText, kElement, kOther } kind = kText;
  std::string raw;    // text: as in the source; other: the whole markup; element: its start tag
  std::string name;   // element: lower-case
  std::string close;  // element: its end tag (as written, or supplied); empty for a void element
  bool translate_no = false;
  bool empty = false;  // void or self-closing: no content, no end tag
  std::vector<Node> children;
  // Set by mark(): the element (or something in it) splits text; its subtree has text to translate.
  bool splits = false, has_text = false;
};

class Parser {
 public:
  Parser(std::string_view html, const HtmlOptions& options) : s_(html), options_(options) {
    root_.kind = Node::kElement;  // with no name and no tags: the fragment itself
    stack_.push_back(&root_);
  }

  Node parse() {
    while (i_ < s_.size()) {
      if (s_[i_] == '<' && (comment() || end_tag() || start_tag() || declaration())) continue;
      const size_t next = s_.find('<', i_ + 1);
      text(s_.substr(i_, (next == std::string_view::npos ? s_.size() : next) - i_));
      i_ = next == std::string_view::npos ? s_.size() : next;
    }
    while (stack_.size() > 1) pop_supplying_end_tag();
    return std::move(root_);
  }

 private:
  Node& top() { return *stack_.back(); }

  void text(std::string_view t) {
    std::vector<Node>& c = top().children;
    if (!c.empty() && c.back().kind == Node::kText) {
      c.back().raw += t;
    } else {
      Node n;
      n.kind = Node::kText;
      n.raw = std::string(t);
      c.push_back(std::move(n));
    }
  }

  void other(std::string_view markup) {
    Node n;
    n.kind = Node::kOther;
    n.raw = std::string(markup);
    top().children.push_back(std::move(n));
  }

  void pop_supplying_end_tag() {
    top().close = "</" + top().name + ">";
    stack_.pop_back();
  }

  bool comment() {
    if (s_.compare(i_, 4, "<!--") != 0) return false;
    size_t end = s_.find("-->", i_ + 4);
    end = end == std::string_view::npos ? s_.size() : end + 3;  // unterminated: the rest is the comment
    other(s_.substr(i_, end - i_));
    i_ = end;
    return true;
  }

  // <!DOCTYPE ...>, <![CDATA[...]]> and <?...>: kept as they are.
  bool declaration() {
    if (i_ + 1 >= s_.size() || (s_[i_ + 1] != '!' && s_[i_ + 1] != '?')) return false;
    const size_t end = s_.find('>', i_ + 2);
    if (end == std::string_view::npos) return false;
    other(s_.substr(i_, end + 1 - i_));
    i_ = end + 1;
    return true;
  }

  size_t name_end(size_t j) const {
    while (j < s_.size() && !ascii_space(s_[j]) && s_[j] != '/' && s_[j] != '>') ++j;
    return j;
  }

  std::string lower_name(size_t b, size_t e) const {
    std::string n(s_.substr(b, e - b));
    for (char& c : n) c = lower(c);
    return n;
  }

  bool end_tag() {
    if (i_ + 2 >= s_.size() || s_[i_ + 1] != '/' || !ascii_alpha(s_[i_ + 2])) return false;
    const size_t e = name_end(i_ + 2);
    const size_t gt = s_.find('>', e);
    if (gt == std::string_view::npos) return false;
    const std::string name = lower_name(i_ + 2, e);
    const std::string_view written = s_.substr(i_, gt + 1 - i_);
    i_ = gt + 1;
    for (size_t k = stack_.size(); k-- > 1;) {
      if (stack_[k]->name != name) continue;
      while (stack_.size() > k + 1) pop_supplying_end_tag();  // elements left open inside it
      top().close = std::string(written);
      stack_.pop_back();
      return true;
    }
    return true;  // closes nothing that is open: dropped
  }

  bool start_tag() {
    if (i_ + 1 >= s_.size() || !ascii_alpha(s_[i_ + 1])) return false;
    const size_t e = name_end(i_ + 1);
    Node n;
    n.kind = Node::kElement;
    n.name = lower_name(i_ + 1, e);
    size_t j = e;
    bool self_closing = false;
    for (;;) {  // attributes, up to '>'
      while (j < s_.size() && (ascii_space(s_[j]) || s_[j] == '/')) {
        self_closing = s_[j] == '/';
        ++j;
      }
      if (j >= s_.size()) return false;  // no '>': the '<' is text
      if (s_[j] == '>') break;
      self_closing = false;
      const size_t name_begin = j;
      while (j < s_.size() && !ascii_space(s_[j]) && s_[j] != '/' && s_[j] != '>' && (s_[j] != '=' || j == name_begin)) ++j;
      const std::string attribute = lower_name(name_begin, j);
      size_t k = j;
      while (k < s_.size() && ascii_space(s_[k])) ++k;
      if (k < s_.size() && s_[k] == '=') {
        ++k;
        while (k < s_.size() && ascii_space(s_[k])) ++k;
        if (k >= s_.size()) return false;
        size_t vb, ve;
        if (s_[k] == '"' || s_[k] == '\'') {
          const size_t q = s_.find(s_[k], k + 1);
          if (q == std::string_view::npos) return false;
          vb = k + 1, ve = q, j = q + 1;
        } else {
          vb = k;
          while (k < s_.size() && !ascii_space(s_[k]) && s_[k] != '>') ++k;
          ve = k, j = k;
        }
        if (attribute == "translate") n.translate_no = lower_name(vb, ve) == "no";
      }
    }
    n.raw = std::string(s_.substr(i_, j + 1 - i_));
    i_ = j + 1;
    n.empty = is_void(n.name) || self_closing;
    if (n.empty) {
      top().children.push_back(std::move(n));
      return true;
    }
    if (stack_.size() > options_.max_depth)
      throw Error("HTML elements nest deeper than " + std::to_string(options_.max_depth) + " (at byte " +
                  std::to_string(i_ - n.raw.size()) + ")");
    top().children.push_back(std::move(n));
    stack_.push_back(&top().children.back());
    if (is_raw_text(top().name)) raw_text();
    return true;
  }

  // The content of a raw-text element, up to its end tag (the rest of the input when it has none).
  void raw_text() {
    const std::string& name = top().name;
    size_t j = i_;
    for (;; ++j) {
      j = s_.find("</", j);
      if (j == std::string_view::npos) break;
      if (j + 2 + name.size() <= s_.size() && lower_name(j + 2, j + 2 + name.size()) == name &&
          (j + 2 + name.size() == s_.size() || ascii_space(s_[j + 2 + name.size()]) || s_[j + 2 + name.size()] == '>' ||
           s_[j + 2 + name.size()] == '/'))
        break;
    }
    const size_t end = j == std::string_view::npos ? s_.size() : j;
    if (end > i_) other(s_.substr(i_, end - i_));
    i_ = end;
    if (j == std::string_view::npos) pop_supplying_end_tag();
  }

  std::string_view s_;
  HtmlOptions options_;
  size_t i_ = 0;
  Node root_;
  std::vector<Node*> stack_;  // open elements; a child is added to the top only, so pointers hold
};

// The source again (a stray '<' in text escaped, end tags supplied).
void serialize(const Node& n, std::string& out) {
  if (n.kind == Node::kText) {
    for (char c : n.raw) {
      if (c == '<') out += "&lt;";
      else out += c;
    }
    return;
  }
  out += n.raw;
  for (const Node& c : n.children) serialize(c, out);
  out += n.close;
}

bool only_space(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (ascii_space(text[i])) continue;
    if (text.compare(i, 2, "\xC2\xA0") == 0) {
      ++i;
      continue;
    }
    return false;
  }
  return true;
}

std::string decode(std::string_view raw, HtmlBlock* block) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    uint32_t cp = 0;
    const size_t n = raw[i] == '&' ? entity_at(raw, i, &cp) : 0;
    if (!n) {
      out += raw[i];
      continue;
    }
    const std::string written(raw.substr(i, n));
    if (block) {
      if (cp == 0xA0) block->nbsp = written;
      if (cp == '"') block->quot = written;
      if (cp == '\'') block->apos = written;
    }
    append_utf8(out, cp);
    i += n - 1;
  }
  return out;
}

class Flattener {
 public:
  explicit Flattener(const HtmlOptions& options) : options_(options) { out_.markup.emplace_back(); }

  HtmlFragment run(Node& root) {
    mark(root);
    container(root.children);
    return std::move(out_);
  }

 private:
  bool skipped(const Node& n) const {
    return n.kind == Node::kElement &&
           (n.translate_no || is_untranslatable(n.name) || (options_.skip_code && is_code(n.name)));
  }

  void mark(Node& n) {
    if (n.kind == Node::kText) {
      n.has_text = !only_space(decode(n.raw, nullptr));
      return;
    }
    if (n.kind == Node::kOther) return;
    for (Node& c : n.children) {
      mark(c);
      n.splits = n.splits || c.splits;
      n.has_text = n.has_text || c.has_text;
    }
    if (skipped(n)) n.has_text = false, n.splits = !is_inline(n.name);
    else if (!n.name.empty() && !is_inline(n.name)) n.splits = true;
  }

  void container(const std::vector<Node>& children) {
    std::vector<const Node*> run;
    for (const Node& c : children) {
      if (!c.splits) {
        run.push_back(&c);
        continue;
      }
      flush(run);
      if (skipped(c)) {
        serialize(c, out_.markup.back());
      } else {
        out_.markup.back() += c.raw;
        container(c.children);
        out_.markup.back() += c.close;
      }
    }
    flush(run);
  }

  void flush(std::vector<const Node*>& run) {
    bool text = false;
    for (const Node* n : run) text = text || n->has_text;
    if (!text) {
      for (const Node* n : run) serialize(*n, out_.markup.back());
    } else {
      HtmlBlock b;
      std::vector<int> path;
      for (const Node* n : run) inline_node(*n, path, b);
      out_.blocks.push_back(std::move(b));
      out_.markup.emplace_back();
    }
    run.clear();
  }

  void inline_node(const Node& n, std::vector<int>& path, HtmlBlock& b) {
    if (n.kind == Node::kText) {
      const size_t begin = b.text.size();
      b.text += decode(n.raw, &b);
      if (!b.runs.empty() && b.runs.back().path == path) b.runs.back().end = b.text.size();
      else b.runs.push_back({begin, b.text.size(), path});
      return;
    }
    if (n.kind == Node::kOther || !n.has_text) {
      HtmlBlock::Atom a;
      a.at = b.text.size();
      a.path = path;
      serialize(n, a.markup);
      b.atoms.push_back(std::move(a));
      return;
    }
    path.push_back(int(b.elements.size()));
    b.elements.push_back({n.raw, n.close});
    for (const Node& c : n.children) inline_node(c, path, b);
    path.pop_back();
  }

  HtmlOptions options_;
  HtmlFragment out_;
};

// The length of `word` without the closing punctuation at its end (.,;:!? and closing quotes or
// brackets).
size_t word_without_closing_punctuation(std::string_view word) {
  size_t n = word.size();
  while (n > 0 && std::strchr(".,;:!?)]}\"'", word[n - 1]) && word[n - 1] != 0) --n;
  return n;
}

size_t common_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return k;
}

// Writes a block: text escaped as its source wrote it, inline elements opened and closed as the
// paths of consecutive pieces ask.
class Emitter {
 public:
  explicit Emitter(const HtmlBlock& b) : b_(b) {}

  void text(std::string_view t, const std::vector<int>& path) {
    if (t.empty()) return;
    to(path);
    for (size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if (c == '&') out_ += "&amp;";
      else if (c == '<') out_ += "&lt;";
      else if (c == '>') out_ += "&gt;";
      else if (c == '"' && !b_.quot.empty()) out_ += b_.quot;
      else if (c == '\'' && !b_.apos.empty()) out_ += b_.apos;
      else if (t.compare(i, 2, "\xC2\xA0") == 0 && !b_.nbsp.empty()) out_ += b_.nbsp, ++i;
      else out_ += c;
    }
  }

  void markup(const std::string& m, const std::vector<int>& path) {
    to(path);
    out_ += m;
  }

  const std::vector<int>& open() const { return open_; }

  std::string finish() {
    to({});
    return std::move(out_);
  }

 private:
  void to(const std::vector<int>& path) {
    const size_t k = common_prefix(open_, path);
    while (open_.size() > k) {
      out_ += b_.elements[size_t(open_.back())].close;
      open_.pop_back();
    }
    for (size_t i = k; i < path.size(); ++i) {
      out_ += b_.elements[size_t(path[i])].open;
      open_.push_back(path[i]);
    }
  }

  const HtmlBlock& b_;
  std::string out_;
  std::vector<int> open_;
};

class BlockRenderer {
 public:
  explicit BlockRenderer(const HtmlBlock& b) : b_(b), e_(b) {}

  std::string run(const std::vector<HtmlSentence>& sentences) {
    for (const HtmlSentence& s : sentences) {
      if (s.begin < pos_ || s.end < s.begin || s.end > b_.text.size())
        throw Error("HTML block: sentences must lie inside the text, in order");
      source(s.begin);
      sentence(s);
    }
    source(b_.text.size());
    return e_.finish();
  }

 private:
  const std::vector<int>& path_at(size_t p) const {
    auto it = std::upper_bound(b_.runs.begin(), b_.runs.end(), p,
                               [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
    static const std::vector<int> kNone;
    return it == b_.runs.end() ? kNone : it->path;
  }

  // The source text from pos_ to `end` as it was, with the atoms up to `end` (inclusive).
  void source(size_t end) {
    for (;;) {
      while (atom_ < b_.atoms.size() && b_.atoms[atom_].at <= pos_) {
        e_.markup(b_.atoms[atom_].markup, b_.atoms[atom_].path);
        ++atom_;
      }
      if (pos_ >= end) break;
      auto run = std::upper_bound(b_.runs.begin(), b_.runs.end(), pos_,
                                  [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
      size_t q = std::min(end, run == b_.runs.end() ? end : run->end);
      if (atom_ < b_.atoms.size()) q = std::min(q, std::max(b_.atoms[atom_].at, pos_ + 1));
      e_.text(std::string_view(b_.text).substr(pos_, q - pos_), path_at(pos_));
      pos_ = q;
    }
  }

  void sentence(const HtmlSentence& s) {
    const auto src = html_words(std::string_view(b_.text).substr(s.begin, s.end - s.begin), s.begin);
    const auto tgt = html_words(s.target);
    const size_t ns = src.size(), nt = tgt.size();
    std::vector<size_t> atoms;  // indices of the atoms inside the sentence
    while (atom_ < b_.atoms.size() && b_.atoms[atom_].at < s.end) atoms.push_back(atom_++);
    pos_ = s.end;
    if (ns == 0 || nt == 0) {  // nothing to align: the elements (empty) and atoms as they were, then the text
      size_t a = 0;
      for (const HtmlBlock::Run& r : b_.runs) {
        if (r.end <= s.begin || r.begin >= s.end) continue;
        for (; a < atoms.size() && b_.atoms[atoms[a]].at <= r.begin; ++a) e_.markup(b_.atoms[atoms[a]].markup, b_.atoms[atoms[a]].path);
        e_.markup("", r.path);
      }
      for (; a < atoms.size(); ++a) e_.markup(b_.atoms[atoms[a]].markup, b_.atoms[atoms[a]].path);
      e_.text(s.target, {});
      return;
    }
    // Each source word's elements: the path over most of its bytes; and every element with a
    // byte in the word (an element over part of a word, "Haus<b>tür</b>", must not get lost).
    std::vector<std::vector<int>> src_path(ns), src_has(ns);
    std::vector<std::vector<int>> element_path(b_.elements.size());  // its ancestors and itself
    for (size_t w = 0; w < ns; ++w) {
      size_t best = 0;
      for (size_t p = src[w].first; p < src[w].second;) {
        auto run = std::upper_bound(b_.runs.begin(), b_.runs.end(), p,
                                    [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
        if (run == b_.runs.end()) break;
        const size_t q = std::min(run->end, src[w].second);
        if (q - p > best) best = q - p, src_path[w] = run->path;
        for (size_t d = 0; d < run->path.size(); ++d) {
          src_has[w].push_back(run->path[d]);
          element_path[size_t(run->path[d])].assign(run->path.begin(), run->path.begin() + long(d + 1));
        }
        p = q;
      }
    }
    std::vector<bool> punctuation_inside(ns, false);  // the word ends in punctuation inside its elements
    for (size_t w = 0; w < ns; ++w) {
      const std::string_view word = std::string_view(b_.text).substr(src[w].first, src[w].second - src[w].first);
      const size_t kept = word_without_closing_punctuation(word);
      punctuation_inside[w] = kept < word.size() && path_at(src[w].first + kept) == src_path[w];
    }
    const bool aligned = s.alignment.size() == nt * ns;
    auto weight = [&](size_t t, size_t w) -> float { return aligned ? s.alignment[t * ns + w] : 0.f; };
    // Where a word would be by its relative place: the fallback without a clear alignment.
    auto relative_source = [&](size_t t) { return std::min(ns - 1, (2 * t + 1) * ns / (2 * nt)); };
    auto relative_target = [&](size_t w) { return std::min(nt - 1, (2 * w + 1) * nt / (2 * ns)); };
    std::vector<size_t> source_of(nt);
    for (size_t t = 0; t < nt; ++t) {
      size_t best = relative_source(t);
      float top = 0.f;
      for (size_t w = 0; w < ns; ++w)
        if (weight(t, w) > top) top = weight(t, w), best = w;
      source_of[t] = best;
    }
    std::vector<std::vector<int>> path(nt);
    for (size_t t = 0; t < nt; ++t) path[t] = src_path[source_of[t]];
    // An element that no target word got takes the target word that attends most to its words
    // (by relative place without that), innermost elements first.
    std::vector<std::pair<size_t, int>> elements;  // (depth, id)
    for (const auto& has : src_has)
      for (int id : has) elements.push_back({element_path[size_t(id)].size(), id});
    std::sort(elements.begin(), elements.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
    auto contains = [](const std::vector<int>& p, int id) { return std::find(p.begin(), p.end(), id) != p.end(); };
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& [depth, id] : elements) {
        bool present = false;
        for (size_t t = 0; t < nt && !present; ++t) present = contains(path[t], id);
        if (present) continue;
        size_t first = ns;
        for (size_t w = 0; w < ns && first == ns; ++w)
          if (contains(src_has[w], id)) first = w;
        size_t best_t = relative_target(first);
        float top = 0.f;
        for (size_t t = 0; t < nt; ++t) {
          float sum = 0.f;
          for (size_t w = 0; w < ns; ++w)
            if (contains(src_has[w], id)) sum += weight(t, w);
          if (sum > top) top = sum, best_t = t;
        }
        path[best_t] = element_path[size_t(id)];
      }
    }
    // An element on two or more separate runs of target words (the translation split what it
    // covered, or a word repeats) stays on the run that attends most to its source words; the
    // words of the other runs leave it (and what it holds), so that each element appears once,
    // as in the source. Outermost elements first; an element left without words is handled below.
    std::sort(elements.begin(), elements.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
    for (const auto& [depth, id] : elements) {
      std::vector<std::pair<size_t, size_t>> runs;  // [first, last] target words
      for (size_t t = 0; t < nt; ++t) {
        if (!contains(path[t], id)) continue;
        if (!runs.empty() && runs.back().second + 1 == t) runs.back().second = t;
        else runs.push_back({t, t});
      }
      if (runs.size() < 2) continue;
      size_t keep = 0;
      float best = -1.f;
      for (size_t r = 0; r < runs.size(); ++r) {
        float score = 0.f;
        for (size_t t = runs[r].first; t <= runs[r].second; ++t)
          for (size_t w = 0; w < ns; ++w)
            if (contains(src_has[w], id)) score += weight(t, w);
        if (score > best) best = score, keep = r;
      }
      for (size_t r = 0; r < runs.size(); ++r) {
        if (r == keep) continue;
        for (size_t t = runs[r].first; t <= runs[r].second; ++t)
          path[t].resize(size_t(std::find(path[t].begin(), path[t].end(), id) - path[t].begin()));
      }
    }
    // Fewer target words than elements: what is still missing is kept empty at its relative place.
    std::vector<std::pair<size_t, int>> empty;  // (before target word, element)
    for (const auto& [depth, id] : elements) {
      bool present = false;
      for (size_t t = 0; t < nt && !present; ++t) present = contains(path[t], id);
      size_t first = 0;
      while (first + 1 < ns && !contains(src_has[first], id)) ++first;
      if (!present) empty.push_back({relative_target(first), id});
    }
    std::sort(empty.begin(), empty.end());
    size_t next_empty = 0;
    // Atoms go before the target word that attends most to the source word after them.
    std::vector<size_t> atom_before(atoms.size(), nt);
    for (size_t i = 0; i < atoms.size(); ++i) {
      size_t w = 0;
      while (w < ns && src[w].first < b_.atoms[atoms[i]].at) ++w;
      if (w == ns) continue;
      size_t best = relative_target(w);
      float top = 0.f;
      for (size_t t = 0; t < nt; ++t)
        if (weight(t, w) > top) top = weight(t, w), best = t;
      atom_before[i] = best;
    }
    std::vector<size_t> order(atoms.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return atom_before[a] != atom_before[b] ? atom_before[a] < atom_before[b] : a < b;
    });
    const std::string_view target(s.target);
    size_t next_atom = 0;
    e_.text(target.substr(0, tgt[0].first), path[0]);
    for (size_t t = 0; t < nt; ++t) {
      for (; next_empty < empty.size() && empty[next_empty].first == t; ++next_empty)
        e_.markup("", element_path[size_t(empty[next_empty].second)]);
      for (; next_atom < order.size() && atom_before[order[next_atom]] == t; ++next_atom) {
        const HtmlBlock::Atom& a = b_.atoms[atoms[order[next_atom]]];
        e_.markup(a.markup, a.path);
        // Markup that stood between two words stays apart from the word after it.
        if (a.at > 0 && a.at < b_.text.size() && ascii_space(b_.text[a.at - 1]) && ascii_space(b_.text[a.at]))
          e_.text(" ", a.path);
      }
      std::vector<int> between(path[t].begin(), path[t].begin() + long(t + 1 < nt ? common_prefix(path[t], path[t + 1]) : 0));
      // Closing punctuation stays out of the word's elements unless the source word had it inside
      // ("<a>Garten</a>." -> "<a>garden</a>.", not "<a>garden.</a>"; "<b>Hallo!</b>" -> "<b>Hello!</b>").
      const std::string_view word = target.substr(tgt[t].first, tgt[t].second - tgt[t].first);
      const bool inside = punctuation_inside[source_of[t]] && path[t] == src_path[source_of[t]];
      size_t kept = inside ? word.size() : word_without_closing_punctuation(word);
      if (kept == 0) kept = word.size();  // punctuation only: it is the word
      e_.text(word.substr(0, kept), path[t]);
      e_.text(word.substr(kept), between);
      const size_t gap_end = t + 1 < nt ? tgt[t + 1].first : target.size();
      if (t + 1 < nt) e_.text(target.substr(tgt[t].second, gap_end - tgt[t].second), between);
      else if (next_atom < order.size() || gap_end > tgt[t].second) {
        for (; next_atom < order.size(); ++next_atom)
          e_.markup(b_.atoms[atoms[order[next_atom]]].markup, b_.atoms[atoms[order[next_atom]]].path);
        e_.text(target.substr(tgt[t].second), e_.open());
      }
    }
  }

  const HtmlBlock& b_;
  Emitter e_;
  size_t pos_ = 0, atom_ = 0;
};

}  // namespace

std::vector<std::pair<size_t, size_t>> html_words(std::string_view text, size_t offset) {
  std::vector<std::pair<size_t, size_t>> words;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && ascii_space(text[i])) ++i;
    const size_t b = i;
    while (i < text.size() && !ascii_space(text[i])) ++i;
    if (i > b) words.push_back({offset + b, offset + i});
  }
  return words;
}

HtmlFragment parse_html(std::string_view html, const HtmlOptions& options) {
  Node root = Parser(html, options).parse();
  return Flattener(options).run(root);
}

std::string render_block(const HtmlBlock& block, const std::vector<HtmlSentence>& sentences) {
  return BlockRenderer(block).run(sentences);
}

std::string render_fragment(const HtmlFragment& fragment, const std::vector<std::string>& blocks) {
  if (blocks.size() != fragment.blocks.size())
    throw Error("HTML fragment: " + std::to_string(blocks.size()) + " blocks given, " +
                std::to_string(fragment.blocks.size()) + " expected");
  std::string out = fragment.markup[0];
  for (size_t i = 0; i < blocks.size(); ++i) out += blocks[i] + fragment.markup[i + 1];
  return out;
}

}  // namespace tformer

namespace tformer {

std::vector<std::string> html_block_texts(const std::string& html, bool translate_code) {
  HtmlOptions o;
  o.skip_code = !translate_code;
  std::vector<std::string> texts;
  for (HtmlBlock& b : parse_html(html, o).blocks) texts.push_back(std::move(b.text));
  return texts;
}

std::string project_html(const std::string& html, const std::vector<std::vector<HtmlSentenceTranslation>>& blocks,
                         bool translate_code) {
  HtmlOptions o;
  o.skip_code = !translate_code;
  const HtmlFragment f = parse_html(html, o);
  if (blocks.size() != f.blocks.size())
    throw Error("project_html: " + std::to_string(blocks.size()) + " blocks given, the fragment has " +
                std::to_string(f.blocks.size()));
  std::vector<std::string> rendered;
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::vector<HtmlSentence> sentences;
    size_t from = 0;
    for (size_t i = 0; i < blocks[b].size(); ++i) {
      const HtmlSentenceTranslation& s = blocks[b][i];
      const std::string where = "project_html: block " + std::to_string(b) + ", sentence " + std::to_string(i);
      HtmlSentence h;
      h.begin = s.source.empty() ? std::string::npos : f.blocks[b].text.find(s.source, from);
      if (h.begin == std::string::npos) throw Error(where + ": its source is not the next text of the block");
      h.end = from = h.begin + s.source.size();
      h.target = s.target;
      if (!s.alignment.empty()) {
        const size_t ns = html_words(s.source).size(), nt = html_words(s.target).size();
        if (s.alignment.size() != nt)
          throw Error(where + ": " + std::to_string(s.alignment.size()) + " alignment entries for " + std::to_string(nt) +
                      " target words");
        h.alignment.assign(nt * ns, 0.f);
        for (size_t t = 0; t < nt; ++t) {
          const int w = s.alignment[t];
          if (w < -1 || w >= int(ns))
            throw Error(where + ": target word " + std::to_string(t) + " is aligned to source word " +
                        std::to_string(w) + " of " + std::to_string(ns));
          if (w >= 0) h.alignment[t * ns + size_t(w)] = 1.f;
        }
      }
      sentences.push_back(std::move(h));
    }
    rendered.push_back(render_block(f.blocks[b], sentences));
  }
  return render_fragment(f, rendered);
}

}  // namespace tformer
