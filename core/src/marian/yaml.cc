#include "marian/yaml.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "tformer/error.h"
#include "util/utf8.h"

namespace tformer::marian {
namespace {

// PyYAML's implicit resolvers (yaml/resolver.py), for plain scalars.
const std::regex& bool_re() {
  static const std::regex re("yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF");
  return re;
}
const std::regex& int_re() {
  static const std::regex re("[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+");
  return re;
}
const std::regex& float_re() {
  static const std::regex re(
      "[-+]?([0-9][0-9_]*)\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9_]+([eE][-+][0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  return re;
}

Json scalar(const YAML::Node& node) {
  const std::string& v = node.Scalar();
  if (node.Tag() == "!") return v;  // quoted: always a string
  if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") return nullptr;
  if (std::regex_match(v, bool_re())) {
    const char c = v[0];
    return c == 'y' || c == 'Y' || c == 't' || c == 'T' || (v.size() == 2 && (v[1] == 'n' || v[1] == 'N'));
  }
  std::string digits;
  for (char c : v) {
    if (c != '_') digits += c;
  }
  if (std::regex_match(v, int_re())) {
    errno = 0;
    long long x;
    const bool neg = digits[0] == '-';
    const std::string body = (digits[0] == '-' || digits[0] == '+') ? digits.substr(1) : digits;
    if (body.rfind("0b", 0) == 0) x = std::strtoll(body.c_str() + 2, nullptr, 2);
    else if (body.rfind("0x", 0) == 0) x = std::strtoll(body.c_str() + 2, nullptr, 16);
    else if (body.size() > 1 && body[0] == '0') x = std::strtoll(body.c_str(), nullptr, 8);
    else x = std::strtoll(body.c_str(), nullptr, 10);
    if (errno == ERANGE) return v;  // beyond 64 bits: kept as text (no option takes such a number)
    return neg ? -x : x;
  }
  if (std::regex_match(v, float_re())) {
    std::string s = digits;
    const bool neg = s[0] == '-';
    if (s[0] == '-' || s[0] == '+') s = s.substr(1);
    double x;
    if (s == ".inf" || s == ".Inf" || s == ".INF") x = HUGE_VAL;
    else if (s[0] == '.' && (s[1] == 'n' || s[1] == 'N')) x = NAN;
    else x = std::strtod(s.c_str(), nullptr);
    return neg ? -x : x;
  }
  return v;
}

Json to_json(const YAML::Node& node, const std::string& what, int depth) {
  if (depth > 32) throw Error(what + ": YAML nested too deeply");
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Sequence: {
      Json a = Json::array();
      for (const auto& x : node) a.push_back(to_json(x, what, depth + 1));
      return a;
    }
    case YAML::NodeType::Map: {
      Json o = Json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) throw Error(what + ": an option name is not a plain value");
        o[kv.first.Scalar()] = to_json(kv.second, what, depth + 1);
      }
      return o;
    }
  }
  return nullptr;
}

YAML::Node load(const std::string& text, const std::string& what, const char* kind) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(what + ": invalid " + kind + "YAML (" + e.what() + ")");
  }
}

}  // namespace

Json parse_options(const std::string& text, const std::string& what) {
  if (find_invalid_utf8(text) != std::string::npos) throw Error(what + ": options are not UTF-8 text");
  const YAML::Node root = load(text, what, "");
  if (root.IsNull() || !root.IsDefined()) return Json::object();
  if (!root.IsMap()) throw Error(what + ": expected a YAML mapping of options");
  try {
    return to_json(root, what, 0);
  } catch (const YAML::Exception& e) {
    throw Error(what + ": invalid YAML (" + e.what() + ")");
  }
}

std::vector<std::string> read_vocab_yml(const std::string& text, const std::string& what) {
  if (find_invalid_utf8(text) != std::string::npos) throw Error(what + ": vocabulary is not UTF-8");
  const YAML::Node root = load(text, what, "vocabulary ");
  if (!root.IsMap() || root.size() == 0) throw Error(what + ": a vocabulary must be a non-empty mapping piece: id");
  std::map<long long, std::string> by_id;
  try {
    for (const auto& kv : root) {
      if (!kv.first.IsScalar() || !kv.second.IsScalar()) {
        throw Error(what + ": a vocabulary entry is not a piece: id pair");
      }
      const std::string& piece = kv.first.Scalar();
      const std::string& value = kv.second.Scalar();
      // Python's int(): optional sign and surrounding spaces, decimal digits (and '_' between them).
      static const std::regex int_text("\\s*[-+]?[0-9](_?[0-9])*\\s*");
      if (!std::regex_match(value, int_text) || value.size() > 24) {
        throw Error(what + ": piece '" + piece + "' has id '" + value + "', not an integer");
      }
      std::string digits;
      for (char c : value) {
        if (c != '_' && c != ' ' && c != '\t' && c != '\n') digits += c;
      }
      const long long id = std::strtoll(digits.c_str(), nullptr, 10);
      auto [it, fresh] = by_id.emplace(id, piece);
      if (!fresh) {
        throw Error(what + ": id " + std::to_string(id) + " is given to both '" + it->second + "' and '" + piece + "'");
      }
    }
  } catch (const YAML::Exception& e) {
    throw Error(what + ": invalid vocabulary YAML (" + e.what() + ")");
  }
  const long long n = static_cast<long long>(by_id.size());
  if (by_id.begin()->first != 0 || by_id.rbegin()->first != n - 1) {
    long long missing = 0;
    for (const auto& [id, piece] : by_id) {
      if (id != missing) break;
      ++missing;
    }
    throw Error(what + ": ids must be 0.." + std::to_string(n - 1) + " without gaps (id " + std::to_string(missing) +
                " is missing)");
  }
  std::vector<std::string> pieces;
  pieces.reserve(by_id.size());
  for (auto& [id, piece] : by_id) pieces.push_back(std::move(piece));
  return pieces;
}

}  // namespace tformer::marian
