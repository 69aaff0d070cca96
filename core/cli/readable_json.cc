#include "readable_json.h"

#include <algorithm>
#include <sstream>

namespace tformer::cli {
namespace {

using nlohmann::json;

bool plain(const json& v) { return !v.is_object() && !v.is_array(); }

// A plain value as text: strings as they are (no quotes), null as "none".
std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  return v.dump();
}

// `text` after a prefix that takes `first` columns, wrapped at word boundaries; continuation
// lines start with `hang` spaces.
std::string wrapped(const std::string& text, size_t first, size_t hang, size_t width) {
  std::istringstream words(text);
  std::string out, word;
  size_t column = first;
  bool start = true;
  while (words >> word) {
    if (!start && column + 1 + word.size() > width) {
      out += "\n" + std::string(hang, ' ');
      column = hang;
    } else if (!start) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    start = false;
  }
  return out;
}

void write(const json& value, int indent, int width, std::string& out) {
  size_t key_width = 0;
  for (const auto& item : value.items()) key_width = std::max(key_width, item.key().size());
  key_width = std::min<size_t>(key_width, 24);
  for (const auto& item : value.items()) {
    const json& v = item.value();
    std::string line = std::string(indent, ' ') + item.key() + ":";
    if (v.is_object() && !v.empty()) {
      out += line + "\n";
      write(v, indent + 2, width, out);
      continue;
    }
    if (v.is_array() && !std::all_of(v.begin(), v.end(), plain)) {
      out += line + "\n";
      for (const json& element : v) {
        if (element.is_object()) {
          std::string nested;
          write(element, indent + 4, width, nested);
          out += std::string(indent + 2, ' ') + "-" + nested.substr(size_t(indent) + 3) ;
        } else {
          out += std::string(indent + 2, ' ') + "- " + element.dump() + "\n";
        }
      }
      continue;
    }
    line += std::string(key_width + 2 - std::min(key_width + 1, item.key().size() + 1), ' ');
    std::string text;
    if (v.is_array()) {
      for (const json& element : v) text += (text.empty() ? "" : ", ") + text_of(element);
      if (v.empty()) text = "none";
    } else if (v.is_object()) {
      text = "none";
    } else {
      text = text_of(v);
    }
    out += line + wrapped(text, line.size(), line.size(), size_t(width)) + "\n";
  }
}

}  // namespace

std::string readable_json(const json& value, int indent, int width) {
  if (!value.is_object()) return std::string(indent, ' ') + text_of(value) + "\n";
  std::string out;
  write(value, indent, width, out);
  return out;
}

}  // namespace tformer::cli
