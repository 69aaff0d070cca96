// What an HTML5 parser that shares nothing with the engine sees in a fragment of HTML: Google's
// gumbo (Debian's libgumbo-dev), parsing the fragment as the content of a div, as innerHTML
// does. Used by the HTML tests (tests/core/test_html_markup.cc) and the HTML fuzz harness to
// check the one thing translated HTML must never do: hold markup that was not markup in the input.
#pragma once

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tformer::testing {

// The elements of one parse, each as "namespace:name attribute=value ..." (attributes sorted;
// "inert " before it inside a template's content, which is never shown and runs nothing), with
// how often the parser makes it: `all` of them, and `own` without the copies of formatting
// elements it makes itself (to reopen a <b> that a <p> closed before the text goes on, or to
// repair misnested tags).
struct Html5Elements {
  std::map<std::string, int> all, own;
};

// gumbo 0.10.1 keeps the "</" of an empty end tag "</>" (which HTML5 drops: no tag at all) in
// front of the next tag, so that in SVG or MathML the end tag after it closes nothing and what
// follows lands in the wrong namespace. It is given each "</>" as "<//>", which every tokenizer
// state reads alike but for text: no tag in text (a bogus comment), an attribute "<" and the
// self-closing solidus within a tag, the same end of a bogus comment, and in an attribute value
// (the engine writes those as they are) the same text in the input and the output.
inline std::string html5_without_empty_end_tags(const std::string& html) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = html.find("</>", from)) != std::string::npos; from = at + 3) out.append(html, from, at - from) += "<//>";
  return out.append(html, from, std::string::npos);
}

// An attribute's value without what html5_without_empty_end_tags wrote into it: "<//>" back to
// "</>", and a final "<//" back to "</" (an unquoted value that ended at the "</>"'s '>'). The
// engine writes a tag back without the attributes a browser drops (a repeated name), so a value
// that ended in "</" before a space may end in "</" before the '>' in the output: the same value
// to a browser, and to the reader. Applied alike to the input and the output, it can only make
// two values equal, never tell them apart.
inline std::string html5_attribute_value(std::string value) {
  for (size_t at; (at = value.find("<//>")) != std::string::npos;) value.erase(at + 2, 1);
  if (value.size() >= 3 && value.compare(value.size() - 3, 3, "<//") == 0) value.pop_back();
  return value;
}

inline Html5Elements html5_parse(const std::string& fragment) {
  const std::string html = html5_without_empty_end_tags(fragment);
  GumboOptions options = kGumboDefaultOptions;
  options.fragment_context = GUMBO_TAG_DIV;
  GumboOutput* out = gumbo_parse_with_options(&options, html.data(), html.size());
  Html5Elements elements;
  std::vector<std::pair<const GumboNode*, bool>> todo = {{out->root, false}};  // a node, and whether inert
  while (!todo.empty()) {
    const auto [n, inert] = todo.back();
    todo.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE) continue;
    const GumboElement& e = n->v.element;
    std::string name;
    if (e.tag == GUMBO_TAG_UNKNOWN) {  // its name from the tag's text
      const std::string original(e.original_tag.data, e.original_tag.length);
      size_t at = 0;
      if (at < original.size() && original[at] == '<') ++at;
      const size_t end = original.find_first_of(" \t\n\r\f/>", at);
      name = original.substr(at, end == std::string::npos ? std::string::npos : end - at);
    } else {
      name = gumbo_normalized_tagname(e.tag);
    }
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    static const char* kNamespaces[] = {"html", "svg", "math"};
    std::vector<std::string> attributes;
    for (unsigned i = 0; i < e.attributes.length; ++i) {
      const GumboAttribute* a = static_cast<const GumboAttribute*>(e.attributes.data[i]);
      attributes.push_back(std::string(a->name) + "=" + html5_attribute_value(a->value));
    }
    std::sort(attributes.begin(), attributes.end());
    std::string key = std::string(inert ? "inert " : "") + kNamespaces[e.tag_namespace] + ":" + name;
    for (const std::string& a : attributes) key += " " + a;
    const bool copy = n->parse_flags & (GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT | GUMBO_INSERTION_ADOPTION_AGENCY_CLONED);
    if (n != out->root) {  // the root is the parser's own html element
      ++elements.all[key];
      if (!copy) ++elements.own[key];
    }
    const bool content_inert = inert || n->type == GUMBO_NODE_TEMPLATE;
    for (unsigned i = 0; i < e.children.length; ++i)
      todo.push_back({static_cast<const GumboNode*>(e.children.data[i]), content_inert});
  }
  gumbo_destroy_output(&options, out);
  return elements;
}

// html5_parse's elements: `copies` all of them, else its own.
inline std::map<std::string, int> html5_elements(const std::string& html, bool copies = true) {
  Html5Elements e = html5_parse(html);
  return copies ? std::move(e.all) : std::move(e.own);
}

// "" when every element the parser sees in `output` it sees in `input` (attributes and all), one
// with attributes made from its tags as often or more often; otherwise what it sees that is new.
// (Copies the parser makes of a formatting element depend on where the text goes on, which a
// translation moves; and how often it makes an element without attributes, such as the empty p of
// a "</p>", depends on tree-building rules for misnested tables and lists that the engine does not
// follow: a plain p or br, which it makes from "</p>" and "</br>", need not be in the input.)
// `exact`: every element, copies too, as often as in the input, none lost.
inline std::string html5_new_markup(const std::string& input, const std::string& output, bool exact = false) {
  const Html5Elements input_elements = html5_parse(input);
  const std::map<std::string, int>& in = exact ? input_elements.all : input_elements.own;
  const std::map<std::string, int>& in_all = input_elements.all;
  const std::map<std::string, int> out = html5_elements(output, exact);
  std::string problems;
  for (const auto& [key, count] : out) {
    const auto it = in.find(key);
    const int before = it == in.end() ? 0 : it->second;
    const std::string element = key.rfind("inert ", 0) == 0 ? key.substr(6) : key;
    const bool attributes = element.find(' ') != std::string::npos;
    // A parser makes a plain p or br from an end tag ("</p>", "</br>") as the tree it has built
    // so far asks, which a repaired prefix changes.
    const bool from_end_tag = element == "html:p" || element == "html:br";
    if ((!in_all.count(key) && !(from_end_tag && !exact)) || ((exact || attributes) && count > before) || (exact && count != before))
      problems += "<" + key + "> " + std::to_string(count) + " times, in the input " + std::to_string(before) + "; ";
  }
  if (exact)
    for (const auto& [key, count] : in)
      if (!out.count(key)) problems += "<" + key + "> lost (" + std::to_string(count) + " in the input); ";
  return problems;
}

}  // namespace tformer::testing
