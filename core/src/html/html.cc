#include "html/html.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <cctype>
#include <unordered_map>

#include "html/tokenizer.h"
#include "tformer/error.h"
#include "tformer/html.h"

namespace tformer {
namespace {

bool one_of(std::string_view name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// Elements with no content and no end tag (as the tree builder makes them: "image" is an img).
bool is_void(std::string_view n) {
  return one_of(n, {"area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img", "input",
                    "keygen", "link", "meta", "param", "source", "track", "wbr"});
}
// Elements that stay inside a sentence (phrasing content); every other element splits the text.
bool is_inline(std::string_view n) {
  return one_of(n, {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i",
                    "image", "img", "input", "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong",
                    "sub", "sup", "time", "tt", "u", "var", "wbr"});
}
// Elements never translated: those whose content is text up to their end tag, never markup, and
// content that is not prose.
bool is_untranslatable(std::string_view n) {
  return one_of(n, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript",
                    "plaintext", "template", "svg", "math", "object"});
}
bool is_code(std::string_view n) { return one_of(n, {"code", "pre", "kbd", "samp"}); }

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
char lower_ascii(char c) { return lower(c); }

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
  enum Namespace { kHtml, kSvg, kMathMl } ns = kHtml;
  std::string raw;    // text: as in the source; other: the markup to write; element: its start tag, written back
  std::string name;   // element: lower-case
  std::string close;  // element: its end tag, "</name>"; empty for a void element
  bool translate_no = false;
  bool empty = false;             // void (or a self-closing SVG or MathML element): no content, no end tag
  bool html_integration = false;  // SVG foreignObject, desc, title; MathML annotation-xml holding HTML
  bool rest = false;              // other: the rest of the input, kept as it is (Parser::keep_rest)
  bool open_to_end = false;       // element: open around that rest, so no end tag of it is written
  // element: its source from its start tag to the end of its content (its end tag not included),
  // which an element kept untranslated writes as it is
  size_t begin = 0, end = 0;
  std::vector<Node> children;
  // Set by mark(): the element (or something in it) splits text; its subtree has text to translate.
  bool splits = false, has_text = false;
};

bool only_space(std::string_view text);

// A start tag written back from its tokens: its name and each attribute as the source wrote them
// (a value in the quotes it had, its character references as they were: read in the same
// tokenizer states, it gives the same value), whitespace between them kept where it was only
// whitespace, and "/>" only on a void element (elsewhere browsers ignore it).
std::string write_start_tag(const html::Token& t, bool is_void) {
  std::string out = "<" + std::string(t.written_name);
  for (size_t i = 0; i < t.attributes.size(); ++i) {
    const html::Attribute& a = t.attributes[i];
    out += !a.before.empty() && only_space(a.before) ? std::string(a.before) : " ";
    out += a.written;
    // A name may start with '=' ("a/=b": a, and "=b"); after "a " that '=' would give a a value.
    const bool next_starts_with_equals = i + 1 < t.attributes.size() && t.attributes[i + 1].written[0] == '=';
    if (!a.has_value) {
      if (next_starts_with_equals) out += "=\"\"";
      continue;
    }
    out += '=';
    if (a.quote) out += a.quote + std::string(a.value) + a.quote;
    else if (a.value.empty()) out += "\"\"";
    else out += a.value;
  }
  const bool spaced_tail = !t.tail.empty() && only_space(t.tail);
  if (spaced_tail) out += t.tail;
  if (t.self_closing && is_void) {
    const html::Attribute* last = t.attributes.empty() ? nullptr : &t.attributes.back();
    if (!spaced_tail && last && last->has_value && !last->quote && !last->value.empty()) out += ' ';
    out += "/>";
  } else {
    out += '>';
  }
  return out;
}

// How the tokenizer reads an HTML element's content after its start tag, if not as markup.
bool text_content(std::string_view n, html::Content* content) {
  if (n == "script") *content = html::Content::kScriptData;
  else if (one_of(n, {"style", "xmp", "iframe", "noembed", "noframes", "noscript"})) *content = html::Content::kRawText;
  else if (n == "textarea" || n == "title") *content = html::Content::kRcdata;
  else if (n == "plaintext") *content = html::Content::kPlainText;
  else return false;
  return true;
}

// The tree builder's "special" elements: an end tag for another element does not close them (a
// "</b>" with a p open inside the b leaves the p open).
bool is_special(std::string_view n) {
  return one_of(n, {"address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body",
                    "br", "button", "caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt",
                    "embed", "fieldset", "figcaption", "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3",
                    "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html", "iframe", "img", "input", "keygen", "li",
                    "link", "listing", "main", "marquee", "menu", "meta", "nav", "noembed", "noframes", "noscript",
                    "object", "ol", "p", "param", "plaintext", "pre", "script", "search", "section", "select", "source",
                    "style", "summary", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead", "title",
                    "tr", "track", "ul", "wbr", "xmp"});
}

// End tags that close their element when it is "in scope", through any element but those that
// bound the scope (bounds_scope).
bool closes_in_scope(std::string_view n) {
  return is_special(n) && !one_of(n, {"body", "html", "head", "br", "p"});
}

bool bounds_scope(std::string_view open, std::string_view end_tag) {
  if (one_of(end_tag, {"table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption", "colgroup"}))
    return one_of(open, {"html", "table", "template"}) && open != end_tag;
  if (end_tag == "li" && (open == "ol" || open == "ul")) return true;
  return one_of(open, {"applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"});
}

// Start tags before which browsers close an open p.
bool closes_p(std::string_view n) {
  return one_of(n, {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
                    "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol", "p",
                    "search", "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "listing", "form",
                    "plaintext", "table", "hr", "xmp", "li", "dd", "dt"});
}

// Start tags that leave SVG and MathML content for HTML (the tree builder's rules for foreign content).
bool breaks_out_of_foreign_content(const html::Token& t) {
  if (t.name == "font") {
    for (const html::Attribute& a : t.attributes)
      if (a.name == "color" || a.name == "face" || a.name == "size") return true;
    return false;
  }
  return one_of(t.name, {"b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em",
                         "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing",
                         "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike",
                         "sub", "sup", "table", "tt", "u", "ul", "var"});
}

bool equals_ascii_case_insensitive(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// The fragment's tree: the tokens of html/tokenizer.h, put together by a small part of the
// WHATWG tree builder. It follows browsers wherever they could read the same bytes differently:
// the tokenizer states an element's start tag switches to, SVG and MathML (where style is no raw
// text and CDATA sections exist, and which many start tags leave), "</br>" (a br) and a stray
// "</p>" (an empty p). Elsewhere it repairs markup in its own simpler way (an end tag closes the
// nearest open element of its name), which may nest elements otherwise than a browser does but
// never reads a byte as markup that a browser reads as text, or the other way round.
//
// Where browsers themselves read the same bytes in two ways, and the two readings could end a
// comment or a raw text in different places, the rest of the input is kept as it is, as markup or
// as text (keep_rest): noscript (raw text with scripting on, as in a page; markup with it off, as in
// DOMParser) unless its text reads alike both ways; inside a select, any tag but options (the older
// select parsing ignores most tags, even end tags of the elements around it, the newer does not); and,
// inside SVG or MathML, a start tag that would leave them for HTML (no longer in a fragment, by an
// older rule), or an end tag that does not close the current element or one of the SVG or MathML
// elements around it (which the tree builder resolves by rules not followed here).
class Parser {
 public:
  Parser(std::string_view html, const HtmlOptions& options) : s_(html), options_(options) {
    root_.kind = Node::kElement;  // with no name and no tags: the fragment itself
    stack_.push_back(&root_);
  }

  Node parse() {
    while (i_ < s_.size()) {
      const html::Token t = html::read_token(s_, i_, top().ns != Node::kHtml);
      const std::string_view written = s_.substr(t.begin, t.end - t.begin);
      i_ = t.end;
      if (!t.complete) eof_closer_.clear();
      switch (t.kind) {
        case html::Token::kText:
          text(written);
          break;
        case html::Token::kNothing:
          break;
        case html::Token::kComment:
          if (!t.complete) eof_closer_ = "-->";
          other("<!--" + std::string(t.data) + "-->");
          break;
        case html::Token::kBogusComment:
        case html::Token::kDoctype:
          if (!t.complete) eof_closer_ = ">";
          other(std::string(written) + (t.complete ? "" : ">"));
          break;
        case html::Token::kCdata:
          if (!t.complete) eof_closer_ = "]]>";
          other(std::string(written) + (t.complete ? "" : "]]>"));
          break;
        case html::Token::kStartTag:
        case html::Token::kEndTag:
          if (!t.complete) {  // cut off by the end of the input: text, as it was ("a <b c=" stays)
            eof_text_at_ = t.begin;
            text(written);
          } else if (t.kind == html::Token::kStartTag) {
            start_tag(t);
          } else {
            end_tag(t);
          }
          break;
      }
    }
    while (stack_.size() > 1) pop(s_.size());
    return std::move(root_);
  }

  // What closes a comment (or CDATA section, or bogus comment) that the input ends inside.
  const std::string& eof_closer() const { return eof_closer_; }
  // Where a tag that the input ends inside begins (it is text), or npos.
  size_t eof_text_at() const { return eof_text_at_; }

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

  void other(std::string markup) {
    Node n;
    n.kind = Node::kOther;
    n.raw = std::move(markup);
    top().children.push_back(std::move(n));
  }

  // The rest of the input from `at` on, where readers may disagree on it: kept as it is where it
  // is, which every reader that agreed on the markup before it reads as it read the input, as long
  // as how it is read does not depend on the elements open around it. It does where it is inside
  // SVG or MathML (an end tag in it may reach an element outside, which a repaired prefix may have
  // closed or not), inside a select, or has one of those: then, from the outermost SVG or MathML
  // element on, it is text, shown as written, and no markup at all.
  void keep_rest(size_t at) {
    size_t from = at;
    bool as_text = select_open();
    // From the outermost element written as its source bytes (SVG, MathML, one kept untranslated)
    // on, which is part of the rest.
    for (size_t k = 1; k < stack_.size(); ++k) {
      const Node& n = *stack_[k];
      const bool foreign = n.ns != Node::kHtml;
      if (!foreign && !(n.translate_no || is_untranslatable(n.name) || (options_.skip_code && is_code(n.name)))) continue;
      from = n.begin;
      as_text = as_text || foreign;
      while (stack_.size() > k) stack_.pop_back();
      top().children.pop_back();
      foreign_open_ = 0;
      break;
    }
    std::string lower(s_.substr(from));
    for (char& c : lower) c = lower_ascii(c);
    for (const char* name : {"<svg", "<math", "<select"}) as_text = as_text || lower.find(name) != std::string::npos;
    std::string rest;
    if (!as_text) {
      rest = std::string(s_.substr(from));
    } else {
      for (char c : s_.substr(from)) {
        if (c == '<') rest += "&lt;";
        else if (c == '&') rest += "&amp;";
        else rest += c;
      }
    }
    other(std::move(rest));
    top().children.back().rest = true;
    for (size_t k = 1; k < stack_.size(); ++k) stack_[k]->open_to_end = true;  // nothing comes after it
    i_ = s_.size();
  }

  void pop(size_t at) {
    top().end = at;
    if (top().ns != Node::kHtml) --foreign_open_;
    stack_.pop_back();
  }

  void add_element(Node n, const html::Token& t) {
    n.kind = Node::kElement;
    n.begin = t.begin;
    n.end = t.end;
    if (!n.empty) n.close = "</" + n.name + ">";
    if (n.empty) {
      top().children.push_back(std::move(n));
      return;
    }
    if (stack_.size() > options_.max_depth)
      throw Error("HTML elements nest deeper than " + std::to_string(options_.max_depth) + " (at byte " +
                  std::to_string(t.begin) + ")");
    if (n.ns != Node::kHtml) ++foreign_open_;
    top().children.push_back(std::move(n));
    stack_.push_back(&top().children.back());
  }

  // Whether the tree builder takes a start tag by its HTML rules (rather than those for foreign content).
  bool html_rules_for(const html::Token& t) {
    const Node& c = top();
    if (c.ns == Node::kHtml || c.html_integration) return true;
    if (c.ns == Node::kMathMl && one_of(c.name, {"mi", "mo", "mn", "ms", "mtext"}))
      return t.name != "mglyph" && t.name != "malignmark";
    return c.ns == Node::kMathMl && c.name == "annotation-xml" && t.name == "svg";
  }

  void start_tag(const html::Token& t) {
    if (!html_rules_for(t)) {
      // A start tag such as <p> or <b> leaves SVG and MathML, but an older rule kept it inside
      // in a fragment (and parsers that follow it, such as gumbo, do): two readings.
      if (breaks_out_of_foreign_content(t)) return keep_rest(t.begin);
      foreign_element(t, top().ns);
      return;
    }
    // Inside a select, browsers following the older rules ignore most tags (even end tags of the
    // elements around it) and those following the newer ones do not: only options are read alike.
    if (select_open() && t.name != "option" && t.name != "optgroup") return keep_rest(t.begin);
    if (t.name == "svg" || t.name == "math") {
      foreign_element(t, t.name == "svg" ? Node::kSvg : Node::kMathMl);
      return;
    }
    if (foreign_open_ > 0 && one_of(t.name, {"html", "head", "body", "frameset", "frame"})) return keep_rest(t.begin);
    // A template's content is built by insertion modes of its own (a cell in it closes no cell
    // around it, a row in it goes nowhere else), never shown and never run, and untranslated: the
    // rest is kept as written, so that a browser builds it as it built the input's, inert.
    if (t.name == "template") return keep_rest(t.begin);
    // Start tags a browser ignores in a fragment's body (and table parts outside a table): kept
    // as markup, but no element (one would bound the scope of end tags, as it does not for them).
    if (one_of(t.name, {"html", "head", "body", "frameset", "frame"}) ||
        (one_of(t.name, {"caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"}) && !table_open())) {
      other(write_start_tag(t, false));
      return;
    }
    Node n;
    n.name = t.name;
    n.empty = is_void(n.name);
    n.raw = write_start_tag(t, n.empty);
    for (const html::Attribute& a : t.attributes)
      if (a.name == "translate") n.translate_no = equals_ascii_case_insensitive(a.value, "no");
    if (closes_p(n.name)) close_p(t.begin);
    close_table_parts(n.name, t.begin);
    html::Content content;
    if (n.empty || !text_content(n.name, &content)) {
      add_element(std::move(n), t);
      return;
    }
    const size_t end = html::content_end(s_, t.end, n.name, content);
    if (n.name == "noscript" && !reads_alike_as_markup(t.end, end)) return keep_rest(t.begin);
    add_element(std::move(n), t);
    if (end > t.end) other(std::string(s_.substr(t.end, end - t.end)));
    i_ = end;  // its end tag (read next) closes it
  }

  bool select_open() const {
    for (const Node* n : stack_)
      if (n->ns == Node::kHtml && n->name == "select") return true;
    return false;
  }

  bool table_open() const {
    for (const Node* n : stack_)
      if (n->ns == Node::kHtml && n->name == "table") return true;
    return false;
  }

  // A new cell closes the open one, a row the open row, and so on, with what is open inside them
  // (a p left open in a cell), as the tree builder's table modes do.
  void close_table_parts(std::string_view name, size_t at) {
    // How far down the table parts go that it closes: td, th; tr; tbody, thead, tfoot; caption, colgroup.
    static const std::vector<std::string_view> kParts = {"td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup"};
    size_t parts;
    if (name == "td" || name == "th") parts = 2;
    else if (name == "tr") parts = 3;
    else if (one_of(name, {"tbody", "thead", "tfoot"})) parts = 6;
    else if (one_of(name, {"caption", "colgroup", "col"})) parts = 8;
    else return;
    auto closes = [&](std::string_view n) { return std::find(kParts.begin(), kParts.begin() + long(parts), n) != kParts.begin() + long(parts); };
    size_t table = 0;
    for (size_t k = stack_.size(); k-- > 1 && !table;)
      if (stack_[k]->ns == Node::kHtml && stack_[k]->name == "table") table = k;
    if (!table) return;
    for (size_t k = table + 1; k < stack_.size(); ++k) {
      if (stack_[k]->ns != Node::kHtml || !closes(stack_[k]->name)) continue;
      while (stack_.size() > k) pop(at);
      return;
    }
  }

  // Closes the p open "in button scope" (none of the elements that bound the scope between it
  // and the current element), as browsers close it before many start tags and at "</p>": with
  // two p elements open, "</p></p>" would make a third.
  bool close_p(size_t at) {
    for (size_t k = stack_.size(); k-- > 1;) {
      const Node& n = *stack_[k];
      if (n.ns == Node::kHtml && n.name == "p") {
        while (stack_.size() > k) pop(at);
        return true;
      }
      if (n.html_integration || (n.ns == Node::kHtml && one_of(n.name, {"applet", "caption", "html", "table", "td", "th",
                                                                        "marquee", "object", "template", "button"})) ||
          (n.ns == Node::kMathMl && one_of(n.name, {"mi", "mo", "mn", "ms", "mtext", "annotation-xml"})))
        return false;
    }
    return false;
  }

  void foreign_element(const html::Token& t, Node::Namespace ns) {
    Node n;
    n.ns = ns;
    n.name = t.name;
    n.empty = t.self_closing;
    n.raw = std::string(s_.substr(t.begin, t.end - t.begin));
    if (ns == Node::kSvg) n.html_integration = one_of(n.name, {"foreignobject", "desc", "title"});
    if (ns == Node::kMathMl && n.name == "annotation-xml") {
      for (const html::Attribute& a : t.attributes) {
        if (a.name != "encoding") continue;
        if (a.value.find('&') != std::string_view::npos) return keep_rest(t.begin);  // a character reference
        n.html_integration = equals_ascii_case_insensitive(a.value, "text/html") ||
                             equals_ascii_case_insensitive(a.value, "application/xhtml+xml");
      }
    }
    add_element(std::move(n), t);
  }

  // Whether the text [from, to) of a raw-text element reads, as markup, as tokens that all end
  // inside it and switch the tokenizer nowhere: then both readings end it at its end tag.
  bool reads_alike_as_markup(size_t from, size_t to) const {
    const std::string_view text = s_.substr(0, to);
    for (size_t i = from; i < to;) {
      const html::Token t = html::read_token(text, i, false);
      if (!t.complete) return false;
      html::Content content;
      if (t.kind == html::Token::kStartTag && (text_content(t.name, &content) || one_of(t.name, {"svg", "math", "select"})))
        return false;
      i = t.end;
    }
    return true;
  }

  void end_tag(const html::Token& t) {
    if (foreign_open_ > 0) {
      // Inside SVG or MathML: an end tag that closes the current element, or (from an SVG or
      // MathML one) the nearest SVG or MathML element of its name; anything else is resolved by
      // tree-builder rules not followed here.
      if (top().ns == Node::kHtml) {
        if (top().name == t.name) return pop(t.begin);
        return keep_rest(t.begin);
      }
      if (t.name == "p" || t.name == "br") return keep_rest(t.begin);  // HTML's rules for these changed over time
      for (size_t k = stack_.size(); k-- > 1 && stack_[k]->ns != Node::kHtml;) {
        if (stack_[k]->name != t.name) continue;
        while (stack_.size() > k) pop(t.begin);
        return;
      }
      return keep_rest(t.begin);
    }
    if (select_open() && !one_of(t.name, {"option", "optgroup", "select"})) return keep_rest(t.begin);
    if (one_of(t.name, {"html", "head", "body"}) ||  // ignored by browsers in a fragment: kept as markup
        (one_of(t.name, {"caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"}) && !table_open())) {
      other("</" + t.name + ">");
      return;
    }
    if (t.name == "br") {  // "</br>" is a br to browsers
      Node br;
      br.name = "br";
      br.empty = true;
      br.raw = "<br>";
      add_element(std::move(br), t);
      return;
    }
    if (t.name == "p") {
      if (close_p(t.begin)) return;
      Node p;  // a "</p>" that closes no p is an empty p to browsers
      p.name = "p";
      p.raw = "<p>";
      add_element(std::move(p), t);
      pop(t.begin);
      return;
    }
    // The nearest open element of its name, with the elements left open inside it, unless an
    // element that bounds the search (as in the tree builder's rules for end tags in a body)
    // comes first: then, as for an end tag that closes nothing, it is dropped.
    const bool scoped = closes_in_scope(t.name);
    const bool heading = one_of(t.name, {"h1", "h2", "h3", "h4", "h5", "h6"});
    for (size_t k = stack_.size(); k-- > 1;) {
      const Node& n = *stack_[k];
      if (n.name == t.name || (heading && one_of(n.name, {"h1", "h2", "h3", "h4", "h5", "h6"}))) {
        while (stack_.size() > k) pop(t.begin);
        return;
      }
      if (scoped ? bounds_scope(n.name, t.name) : is_special(n.name)) return;
    }
  }

  std::string_view s_;
  HtmlOptions options_;
  size_t i_ = 0;
  Node root_;
  std::vector<Node*> stack_;  // open elements; a child is added to the top only, so pointers hold
  int foreign_open_ = 0;      // SVG and MathML elements on the stack
  std::string eof_closer_;
  size_t eof_text_at_ = std::string_view::npos;
};


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
  Flattener(std::string_view source, const std::string& eof_closer, size_t eof_text_at, const HtmlOptions& options)
      : source_(source), eof_closer_(eof_closer), eof_text_at_(eof_text_at), options_(options) {
    out_.markup.emplace_back();
  }

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
    if (n.kind == Node::kOther) {
      n.splits = n.rest;
      return;
    }
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
      if (skipped(c) || c.kind == Node::kOther) {
        serialize(c, out_.markup.back());
      } else {
        out_.markup.back() += c.raw;
        container(c.children);
        if (!c.open_to_end) out_.markup.back() += c.close;
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
      if (skipped(n)) {
        visible_text(n, a.text);
        if (only_space(a.text)) a.text.clear();
      }
      b.atoms.push_back(std::move(a));
      return;
    }
    b.elements.push_back({n.raw, n.close, path.empty() ? -1 : path.back()});
    path.push_back(int(b.elements.size() - 1));
    for (const Node& c : n.children) inline_node(c, path, b);
    path.pop_back();
  }

  // The text a reader sees in an element kept untranslated (entities decoded).
  static void visible_text(const Node& n, std::string& out) {
    if (n.kind == Node::kText) out += decode(n.raw, nullptr);
    else if (n.kind == Node::kElement)
      for (const Node& c : n.children) visible_text(c, out);
  }

  // The node again: text with a stray '<' escaped, markup written back from its tokens, end tags
  // supplied; an element kept untranslated as its source bytes (its markup means there what it
  // meant in the input: the same bytes, read from the same state).
  void serialize(const Node& n, std::string& out) const {
    if (n.kind == Node::kText) {
      for (char c : n.raw) {
        if (c == '<') out += "&lt;";
        else out += c;
      }
      return;
    }
    if (n.kind == Node::kOther) {
      out += n.raw;
      return;
    }
    if (skipped(n) && n.open_to_end) {  // the rest of the input is in it: as it is, nothing after it
      out += source_.substr(n.begin);
      return;
    }
    if (skipped(n)) {
      // A tag the input ends inside is text (escaped: the end tags after it would end it).
      const size_t cut = n.end == source_.size() && eof_text_at_ >= n.begin && eof_text_at_ < n.end ? eof_text_at_ : n.end;
      out += source_.substr(n.begin, cut - n.begin);
      for (char c : source_.substr(cut, n.end - cut)) {
        if (c == '<') out += "&lt;";
        else out += c;
      }
      if (n.end == source_.size()) out += eof_closer_;  // a comment the input ends inside ends here
      // The elements left open inside it are closed too, innermost first (an end tag that skipped
      // them could make a browser clone a formatting element around them).
      std::vector<const Node*> open;
      for (const Node* m = &n; !m->children.empty();) {
        const Node& last = m->children.back();
        if (last.kind != Node::kElement || last.empty || last.end != n.end) break;
        open.push_back(m = &last);
      }
      for (size_t k = open.size(); k-- > 0;) out += open[k]->close;
      out += n.close;
      return;
    }
    out += n.raw;
    for (const Node& c : n.children) serialize(c, out);
    if (!n.open_to_end) out += n.close;
  }

  std::string_view source_;
  const std::string& eof_closer_;
  size_t eof_text_at_;
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

// Renders a block in two steps. First the pieces of its output, in order: the source text outside
// sentences, each sentence's target words (and the text between them), and the markup without
// text, each piece with the elements it lies in (its path). Within a sentence each target word
// takes the elements of the source word it is aligned to most, an element no word got takes the
// word attending most to its source words, and markup without text goes before the word aligned
// to the source word after it. Then each element is kept on one run of consecutive pieces, as the
// source has it once: the run that attends most to its source words (text outside sentences,
// where the source had it, first), two runs joined where only whitespace and punctuation lie
// between them; an element that loses all its pieces that way is kept empty inside its parent.
// The alignment is read sparsely (each target word's links to source words), so a block costs
// about its words, links and elements times their depth.
class BlockRenderer {
 public:
  explicit BlockRenderer(const HtmlBlock& b) : b_(b), element_path_(b.elements.size()) {
    for (size_t id = 0; id < b.elements.size(); ++id) {  // a parent comes before its children
      const int parent = b.elements[id].parent;
      if (parent >= 0 && size_t(parent) < id) element_path_[id] = element_path_[size_t(parent)];
      element_path_[id].push_back(int(id));
    }
  }

  std::string run(const std::vector<HtmlSentence>& sentences) {
    for (const HtmlSentence& s : sentences) {
      if (s.begin < pos_ || s.end < s.begin || s.end > b_.text.size())
        throw Error("HTML block: sentences must lie inside the text, in order");
      source(s.begin);
      sentence(s);
    }
    source(b_.text.size());
    keep_each_element_once();
    Emitter e(b_);
    for (const Piece& p : pieces_) {
      if (p.markup) e.markup(*p.markup, p.path);
      else e.text(p.text, p.path);
    }
    return e.finish();
  }

 private:
  static constexpr float kSourceText = 1e30f;  // the score of source text outside sentences

  struct Piece {
    std::string_view text;
    const std::string* markup = nullptr;  // markup instead of text ("": the path's elements, empty)
    std::vector<int> path;
    std::vector<float> score;  // per element of the path: how much the piece attends to its source words
    bool joins = false;        // whitespace or punctuation only: may join two runs of an element
  };

  void add_text(std::string_view text, const std::vector<int>& path, float score = 0.f) {
    if (text.empty()) return;
    Piece p;
    p.text = text;
    p.path = path;
    p.joins = true;
    for (char c : text) p.joins = p.joins && static_cast<unsigned char>(c) < 0x80 && !std::isalnum(static_cast<unsigned char>(c));
    p.score.assign(path.size(), p.joins ? 0.f : score);
    pieces_.push_back(std::move(p));
  }

  void add_markup(const std::string& markup, const std::vector<int>& path) {
    Piece p;
    p.markup = &markup;
    p.path = path;
    p.score.assign(path.size(), 0.f);
    pieces_.push_back(std::move(p));
  }

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
        add_markup(b_.atoms[atom_].markup, b_.atoms[atom_].path);
        ++atom_;
      }
      if (pos_ >= end) break;
      auto run = std::upper_bound(b_.runs.begin(), b_.runs.end(), pos_,
                                  [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
      size_t q = std::min(end, run == b_.runs.end() ? end : run->end);
      if (atom_ < b_.atoms.size()) q = std::min(q, std::max(b_.atoms[atom_].at, pos_ + 1));
      add_text(std::string_view(b_.text).substr(pos_, q - pos_), path_at(pos_), kSourceText);
      pos_ = q;
    }
  }

  void sentence(const HtmlSentence& s) {
    const auto src = html_source_words(b_, s.begin, s.end);
    const auto tgt = html_words(s.target);
    const size_t ns = src.size(), nt = tgt.size();
    std::vector<size_t> atoms;  // indices of the atoms inside the sentence
    while (atom_ < b_.atoms.size() && b_.atoms[atom_].at < s.end) atoms.push_back(atom_++);
    pos_ = s.end;
    if (ns == 0 || nt == 0) {  // nothing to align: the elements (empty) and atoms as they were, then the text
      size_t a = 0;
      auto r = std::upper_bound(b_.runs.begin(), b_.runs.end(), s.begin,
                                [](size_t x, const HtmlBlock::Run& run) { return x < run.end; });
      for (; r != b_.runs.end() && r->begin < s.end; ++r) {
        for (; a < atoms.size() && b_.atoms[atoms[a]].at <= r->begin; ++a) add_markup(b_.atoms[atoms[a]].markup, b_.atoms[atoms[a]].path);
        add_markup(kEmpty, r->path);
      }
      for (; a < atoms.size(); ++a) add_markup(b_.atoms[atoms[a]].markup, b_.atoms[atoms[a]].path);
      add_text(s.target, {});
      return;
    }
    // The alignment as links: each target word's source words with a positive weight, and back.
    std::vector<std::vector<std::pair<size_t, float>>> links(nt), back(ns);
    if (!s.source_word.empty()) {
      for (size_t t = 0; t < nt && t < s.source_word.size(); ++t)
        if (s.source_word[t] >= 0 && size_t(s.source_word[t]) < ns) links[t].push_back({size_t(s.source_word[t]), 1.f});
    } else if (s.alignment.size() == nt * ns) {
      for (size_t t = 0; t < nt; ++t)
        for (size_t w = 0; w < ns; ++w)
          if (s.alignment[t * ns + w] > 0.f) links[t].push_back({w, s.alignment[t * ns + w]});
    }
    for (size_t t = 0; t < nt; ++t)
      for (const auto& [w, a] : links[t]) back[w].push_back({t, a});
    // Each source word's elements: the path over most of its bytes; and every element with a
    // byte in the word (an element over part of a word, "Haus<b>tür</b>", must not get lost).
    std::vector<std::vector<int>> src_path(ns), src_has(ns);
    for (size_t w = 0; w < ns; ++w) {
      size_t best = 0;
      for (size_t p = src[w].first; p < src[w].second;) {
        auto run = std::upper_bound(b_.runs.begin(), b_.runs.end(), p,
                                    [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
        if (run == b_.runs.end()) break;
        const size_t q = std::min(run->end, src[w].second);
        if (q - p > best) best = q - p, src_path[w] = run->path;
        src_has[w].insert(src_has[w].end(), run->path.begin(), run->path.end());
        p = q;
      }
      std::sort(src_has[w].begin(), src_has[w].end());
      src_has[w].erase(std::unique(src_has[w].begin(), src_has[w].end()), src_has[w].end());
    }
    std::vector<bool> punctuation_inside(ns, false);  // the word ends in punctuation inside its elements
    for (size_t w = 0; w < ns; ++w) {
      const std::string_view word = std::string_view(b_.text).substr(src[w].first, src[w].second - src[w].first);
      const size_t kept = word_without_closing_punctuation(word);
      punctuation_inside[w] = kept < word.size() && path_at(src[w].first + kept) == src_path[w];
    }
    // Where a word would be by its relative place: the fallback without a clear alignment.
    auto relative_source = [&](size_t t) { return std::min(ns - 1, (2 * t + 1) * ns / (2 * nt)); };
    auto relative_target = [&](size_t w) { return std::min(nt - 1, (2 * w + 1) * nt / (2 * ns)); };
    std::vector<size_t> source_of(nt);
    for (size_t t = 0; t < nt; ++t) {
      size_t best = relative_source(t);
      float top = 0.f;
      for (const auto& [w, a] : links[t])
        if (a > top) top = a, best = w;
      source_of[t] = best;
    }
    std::vector<std::vector<int>> path(nt);
    std::unordered_map<int, int> holders;  // element -> how many target words lie in it
    auto set_path = [&](size_t t, const std::vector<int>& p) {
      for (int id : path[t]) --holders[id];
      path[t] = p;
      for (int id : path[t]) ++holders[id];
    };
    for (size_t t = 0; t < nt; ++t) set_path(t, src_path[source_of[t]]);
    // The sentence's elements, innermost first, and the source words each has a byte in.
    std::unordered_map<int, std::vector<size_t>> words_of;
    for (size_t w = 0; w < ns; ++w)
      for (int id : src_has[w]) words_of[id].push_back(w);
    std::vector<std::pair<size_t, int>> elements;  // (depth, id)
    for (const auto& [id, words] : words_of) elements.push_back({element_path_[size_t(id)].size(), id});
    std::sort(elements.begin(), elements.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    // The target word attending most to an element's source words (by relative place without that).
    std::vector<float> attention(nt, 0.f);
    auto most_attending = [&](int id) {
      const std::vector<size_t>& words = words_of[id];
      std::vector<size_t> touched;
      for (size_t w : words)
        for (const auto& [t, a] : back[w]) {
          if (attention[t] == 0.f) touched.push_back(t);
          attention[t] += a;
        }
      std::sort(touched.begin(), touched.end());
      size_t best = relative_target(words.front());
      float top = 0.f;
      for (size_t t : touched) {
        if (attention[t] > top) top = attention[t], best = t;
        attention[t] = 0.f;
      }
      return best;
    };
    // An element that no target word got takes the word that attends most to it.
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& [depth, id] : elements)
        if (holders[id] <= 0) set_path(most_attending(id), element_path_[size_t(id)]);
    // Fewer target words than elements: what is still missing is kept empty at its relative place.
    std::vector<std::pair<size_t, int>> empty;  // (before target word, element)
    for (const auto& [depth, id] : elements)
      if (holders[id] <= 0) empty.push_back({relative_target(words_of[id].front()), id});
    std::sort(empty.begin(), empty.end());
    size_t next_empty = 0;
    // Atoms go before the target word that attends most to the source word after them.
    std::vector<size_t> atom_before(atoms.size(), nt);
    for (size_t i = 0; i < atoms.size(); ++i) {
      size_t w = size_t(std::lower_bound(src.begin(), src.end(), b_.atoms[atoms[i]].at,
                                         [](const std::pair<size_t, size_t>& word, size_t at) { return word.first < at; }) -
                        src.begin());
      if (w == ns) continue;
      size_t best = relative_target(w);
      float top = 0.f;
      for (const auto& [t, a] : back[w])
        if (a > top) top = a, best = t;
      atom_before[i] = best;
    }
    std::vector<size_t> order(atoms.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return atom_before[a] < atom_before[b]; });
    // The pieces.
    const std::string_view target(s.target);
    size_t next_atom = 0;
    add_text(target.substr(0, tgt[0].first), path[0]);
    for (size_t t = 0; t < nt; ++t) {
      for (; next_empty < empty.size() && empty[next_empty].first == t; ++next_empty)
        add_markup(kEmpty, element_path_[size_t(empty[next_empty].second)]);
      for (; next_atom < order.size() && atom_before[order[next_atom]] == t; ++next_atom) {
        const HtmlBlock::Atom& a = b_.atoms[atoms[order[next_atom]]];
        add_markup(a.markup, a.path);
        // Markup that stood between two words stays apart from the word after it.
        if (a.at > 0 && a.at < b_.text.size() && ascii_space(b_.text[a.at - 1]) && ascii_space(b_.text[a.at]))
          add_text(" ", a.path);
      }
      std::vector<int> between(path[t].begin(), path[t].begin() + long(t + 1 < nt ? common_prefix(path[t], path[t + 1]) : 0));
      // Closing punctuation stays out of the word's elements unless the source word had it inside
      // ("<a>Garten</a>." -> "<a>garden</a>.", not "<a>garden.</a>"; "<b>Hallo!</b>" -> "<b>Hello!</b>").
      const std::string_view word = target.substr(tgt[t].first, tgt[t].second - tgt[t].first);
      const bool inside = punctuation_inside[source_of[t]] && path[t] == src_path[source_of[t]];
      size_t kept = inside ? word.size() : word_without_closing_punctuation(word);
      if (kept == 0) kept = word.size();  // punctuation only: it is the word
      add_text(word.substr(0, kept), path[t]);
      // The word's attention to the source words of each of its elements.
      std::vector<float>& score = pieces_.back().score;
      for (const auto& [w, a] : links[t])
        for (int id : src_has[w])
          for (size_t k = 0; k < path[t].size(); ++k)
            if (path[t][k] == id) score[k] += a;
      add_text(word.substr(kept), between);
      const size_t gap_end = t + 1 < nt ? tgt[t + 1].first : target.size();
      if (t + 1 < nt) {
        add_text(target.substr(tgt[t].second, gap_end - tgt[t].second), between);
      } else if (next_atom < order.size() || gap_end > tgt[t].second) {
        for (; next_atom < order.size(); ++next_atom)
          add_markup(b_.atoms[atoms[order[next_atom]]].markup, b_.atoms[atoms[order[next_atom]]].path);
        add_text(target.substr(tgt[t].second), pieces_.back().path);
      }
    }
  }

  bool holds(const Piece& p, int id) const {
    const size_t depth = element_path_[size_t(id)].size() - 1;
    return p.path.size() > depth && p.path[depth] == id;
  }

  // Each element on one run of pieces (see the class comment), outermost elements first.
  void keep_each_element_once() {
    const size_t E = b_.elements.size();
    std::vector<std::vector<size_t>> pieces_of(E);
    for (size_t i = 0; i < pieces_.size(); ++i)
      for (int id : pieces_[i].path) pieces_of[size_t(id)].push_back(i);
    std::vector<size_t> order(E);
    for (size_t i = 0; i < E; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return element_path_[a].size() < element_path_[b].size(); });
    std::vector<size_t> after(E, 0);  // just after the run an element keeps (a piece index)
    std::vector<size_t> lost;
    for (size_t id : order) {
      const size_t depth = element_path_[id].size() - 1;
      std::vector<size_t> at;  // the pieces that still hold it
      for (size_t i : pieces_of[id])
        if (holds(pieces_[i], int(id))) at.push_back(i);
      if (at.empty()) {
        lost.push_back(id);
        continue;
      }
      // Runs: [first, last] pieces; whitespace and punctuation outside the element's parent-only
      // path between two of its pieces join them.
      const std::vector<int> parent(element_path_[id].begin(), element_path_[id].end() - 1);
      std::vector<std::pair<size_t, size_t>> runs;
      for (size_t i : at) {
        bool joined = !runs.empty();
        for (size_t k = joined ? runs.back().second + 1 : i; joined && k < i; ++k) {
          const Piece& p = pieces_[k];
          joined = p.joins && !p.markup && p.path.size() <= parent.size() && std::equal(p.path.begin(), p.path.end(), parent.begin());
        }
        if (joined) runs.back().second = i;
        else runs.push_back({i, i});
      }
      size_t keep = 0;
      float best = -1.f;
      for (size_t r = 0; r < runs.size(); ++r) {
        float score = 0.f;
        for (size_t k = runs[r].first; k <= runs[r].second; ++k)
          if (holds(pieces_[k], int(id))) score += pieces_[k].score[depth];
        if (score > best) best = score, keep = r;
      }
      for (size_t r = 0; r < runs.size(); ++r) {
        for (size_t k = runs[r].first; k <= runs[r].second; ++k) {
          Piece& p = pieces_[k];
          if (r != keep) {
            if (holds(p, int(id))) p.path.resize(depth), p.score.resize(depth);
          } else if (!holds(p, int(id))) {  // joining whitespace or punctuation
            p.path = element_path_[id];
            p.score.assign(p.path.size(), 0.f);
          }
        }
      }
      after[id] = runs[keep].second + 1;
    }
    if (lost.empty()) return;
    // A lost element is kept empty just after its parent's run (an element of the top level:
    // before the next piece where no element goes on).
    std::vector<size_t> boundary(pieces_.size() + 1, pieces_.size());
    for (size_t i = pieces_.size(); i-- > 1;)
      boundary[i] = common_prefix(pieces_[i - 1].path, pieces_[i].path) == 0 ? i : boundary[i + 1];
    boundary[0] = 0;
    std::vector<std::pair<size_t, size_t>> inserts;  // (before piece, element)
    for (size_t id : lost) {  // outermost first: a lost parent is placed before its children
      const int parent = b_.elements[id].parent;
      size_t at;
      if (parent >= 0) {
        at = after[size_t(parent)];
      } else {
        size_t seen = pieces_.size();
        for (size_t i : pieces_of[id]) seen = std::min(seen, i);
        at = boundary[std::min(seen, pieces_.size())];
      }
      after[id] = at;
      inserts.push_back({at, id});
    }
    // Several at one place: those that hang deepest from the elements open there first, each
    // subtree in document order, so that every element's pieces stay together.
    std::sort(inserts.begin(), inserts.end(), [&](auto& a, auto& b) {
      if (a.first != b.first) return a.first < b.first;
      static const std::vector<int> kNone;
      const std::vector<int>& open = a.first > 0 ? pieces_[a.first - 1].path : kNone;
      const size_t da = common_prefix(open, element_path_[a.second]), db = common_prefix(open, element_path_[b.second]);
      return da != db ? da > db : element_path_[a.second] < element_path_[b.second];
    });
    std::vector<Piece> merged;
    merged.reserve(pieces_.size() + inserts.size());
    size_t next = 0;
    for (size_t i = 0; i <= pieces_.size(); ++i) {
      for (; next < inserts.size() && inserts[next].first == i; ++next) {
        Piece p;
        p.markup = &kEmpty;
        p.path = element_path_[inserts[next].second];
        merged.push_back(std::move(p));
      }
      if (i < pieces_.size()) merged.push_back(std::move(pieces_[i]));
    }
    pieces_ = std::move(merged);
  }

  static const std::string kEmpty;
  const HtmlBlock& b_;
  std::vector<std::vector<int>> element_path_;  // each element's ancestors and itself
  std::vector<Piece> pieces_;
  size_t pos_ = 0, atom_ = 0;
};

const std::string BlockRenderer::kEmpty;

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

std::vector<std::pair<size_t, size_t>> html_source_words(const HtmlBlock& block, size_t begin, size_t end) {
  std::vector<std::pair<size_t, size_t>> out;
  const auto run_at = [&](size_t p) {
    return std::upper_bound(block.runs.begin(), block.runs.end(), p, [](size_t x, const HtmlBlock::Run& r) { return x < r.end; });
  };
  for (const auto& [b, e] : html_words(std::string_view(block.text).substr(begin, end - begin), begin)) {
    size_t from = b;
    for (auto run = run_at(b); run != block.runs.end() && run->end < e; ++run) {
      const auto next = run + 1;
      if (next != block.runs.end() && next->path != run->path && run->end > from) {
        out.push_back({from, run->end});
        from = run->end;
      }
    }
    out.push_back({from, e});
  }
  return out;
}

HtmlFragment parse_html(std::string_view html, const HtmlOptions& options) {
  Parser parser(html, options);
  Node root = parser.parse();
  return Flattener(html, parser.eof_closer(), parser.eof_text_at(), options).run(root);
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
        const size_t ns = html_source_words(f.blocks[b], h.begin, h.end).size(), nt = html_words(s.target).size();
        if (s.alignment.size() != nt)
          throw Error(where + ": " + std::to_string(s.alignment.size()) + " alignment entries for " + std::to_string(nt) +
                      " target words");
        for (size_t t = 0; t < nt; ++t) {
          const int w = s.alignment[t];
          if (w < -1 || w >= int(ns))
            throw Error(where + ": target word " + std::to_string(t) + " is aligned to source word " +
                        std::to_string(w) + " of " + std::to_string(ns));
        }
        h.source_word = s.alignment;
      }
      sentences.push_back(std::move(h));
    }
    rendered.push_back(render_block(f.blocks[b], sentences));
  }
  return render_fragment(f, rendered);
}

}  // namespace tformer
