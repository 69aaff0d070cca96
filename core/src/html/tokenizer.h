// The tokenization stage of the WHATWG HTML parser (html.spec.whatwg.org, "13.2.5 Tokenization")
// for html.cc: where each tag, comment, doctype and run of text begins and ends, read as browsers
// read it. The fragment parser writes markup back from these tokens, so a piece of markup must end
// exactly where a browser ends it: an end tag's quoted attributes may hold a '>' (</b x=">">), a
// comment also ends at "--!>", "<!-->" and "<!--->", and the text of script, style, textarea...
// ends only at its own end tag (script data, with its "<!--" escapes, by its own rules).
// Character references are left as written: they never change where a token ends.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tformer::html {

struct Attribute {
  std::string name;          // lower-case, as the tokenizer names it
  std::string_view written;  // the name as written
  bool has_value = false;
  char quote = 0;            // '"', '\'' or 0 (unquoted)
  std::string_view value;    // as written, between its quotes (character references not decoded)
  std::string_view before;   // what the source had between the previous item and this attribute
};

struct Token {
  enum Kind {
    kText,          // a run of text (character references as written)
    kStartTag,
    kEndTag,        // its attributes are read (they decide where it ends) and then dropped
    kComment,       // <!--data-->
    kBogusComment,  // <?...>, <!...>, </3...>: a comment up to the first '>'
    kDoctype,       // <!DOCTYPE ...>, up to the first '>'
    kCdata,         // <![CDATA[...]]> (only where the caller allows it: inside SVG and MathML)
    kNothing,       // "</>": browsers drop it
  };
  Kind kind = kText;
  size_t begin = 0, end = 0;  // the source bytes it spans
  bool complete = true;       // false: the input ended inside it
  // Tags:
  std::string name;           // lower-case
  std::string_view written_name;
  std::vector<Attribute> attributes;  // start tags; a repeated name is dropped, as browsers do
  bool self_closing = false;
  std::string_view tail;      // what the source had between the last attribute (or the name) and "/>" or ">"
  // Comments: the data between "<!--" and its end.
  std::string_view data;
};

// The token at `at` read in the data state: text up to the next '<' that starts markup, or the
// markup there. `cdata`: "<![CDATA[" opens a CDATA section (the current element is an SVG or
// MathML one) rather than a bogus comment.
Token read_token(std::string_view source, size_t at, bool cdata);

// How the text of an element is read (the tree builder switches the tokenizer after its start tag).
enum class Content {
  kRcdata,      // textarea, title: text (with character references) up to the end tag
  kRawText,     // style, xmp, iframe, noembed, noframes, noscript: text up to the end tag
  kScriptData,  // script: text up to the end tag, not counting one inside "<!--<script>...</script>"
  kPlainText,   // plaintext: the rest of the input
};

// Where the text of element `name` (lower-case), which starts at `at`, ends: at the '<' of its end
// tag ("</name" followed by whitespace, '/' or '>', any case), or at the end of the input.
size_t content_end(std::string_view source, size_t at, std::string_view name, Content content);

// ASCII whitespace as the tokenizer knows it (CR included: the input stream turns it into LF).
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

}  // namespace tformer::html
