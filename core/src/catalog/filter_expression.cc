// Remote Settings' filter_expression (JEXL) as Firefox's translation records use it: who sees a
// record. Firefox's model tooling writes "" (every channel), "env.channel == 'default' ||
// env.channel == 'nightly'" (alpha versions) and "env.channel != 'release'" (beta versions), and
// records may also be kept to Android or to desktop through env.appinfo.OS. This reads that
// subset: string, boolean and number literals, arrays, env.* names, ==, !=, in, !, &&, || and
// parentheses. Anything else (transforms, arithmetic) is an expression this cannot judge: the
// record is hidden, as Remote Settings hides a record whose expression fails.
#include <cctype>
#include <stdexcept>
#include <string>
#include <vector>

#include "tformer/catalog.h"

namespace tformer::catalog {
namespace {

struct Value {
  enum Kind { kUndefined, kBool, kString, kNumber, kArray } kind = kUndefined;
  bool b = false;
  std::string s;  // kString; kNumber as written
  std::vector<Value> items;
  bool truthy() const {
    switch (kind) {
      case kBool: return b;
      case kString: return !s.empty();
      case kNumber: return s != "0";
      case kArray: return true;
      default: return false;
    }
  }
  bool operator==(const Value& o) const {
    if (kind != o.kind) return false;
    if (kind == kBool) return b == o.b;
    if (kind == kString || kind == kNumber) return s == o.s;
    return false;  // arrays and undefined compare unequal, as in JavaScript
  }
};

struct Unreadable : std::runtime_error {
  Unreadable() : std::runtime_error("unreadable filter expression") {}
};

// What a desktop application on `channel` answers for env.*.
Value environment(const std::string& name, Channel channel) {
  Value v;
  if (name == "env.channel") {
    v.kind = Value::kString;
    v.s = channel_name(channel);
  } else if (name == "env.appinfo.OS") {
    v.kind = Value::kString;
    v.s = "Linux";  // a desktop OS: records kept to Android are not ours
  }
  return v;  // other names are undefined
}

class Parser {
 public:
  Parser(const std::string& text, Channel channel) : t_(text), channel_(channel) {}

  bool evaluate() {
    const Value v = expression();
    skip_space();
    if (at_ != t_.size()) throw Unreadable();
    return v.truthy();
  }

 private:
  void skip_space() {
    while (at_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[at_]))) ++at_;
  }
  bool take(const std::string& token) {
    skip_space();
    if (t_.compare(at_, token.size(), token) != 0) return false;
    // A word must end there ("in" is not the start of "index").
    if (std::isalpha(static_cast<unsigned char>(token[0])) && at_ + token.size() < t_.size() &&
        (std::isalnum(static_cast<unsigned char>(t_[at_ + token.size()])) || t_[at_ + token.size()] == '_'))
      return false;
    at_ += token.size();
    return true;
  }

  Value expression() {
    Value v = conjunction();
    while (take("||")) {
      const Value w = conjunction();
      v = boolean(v.truthy() || w.truthy());
    }
    return v;
  }
  Value conjunction() {
    Value v = unary();
    while (take("&&")) {
      const Value w = unary();
      v = boolean(v.truthy() && w.truthy());
    }
    return v;
  }
  // Nesting deeper than any real expression is refused before it can exhaust the stack.
  struct Depth {
    explicit Depth(int& d) : d_(d) {
      if (++d_ > 64) throw Unreadable();
    }
    ~Depth() { --d_; }
    int& d_;
  };

  Value unary() {
    Depth guard(depth_);
    if (take("!")) {
      if (at_ < t_.size() && t_[at_] == '=') throw Unreadable();
      return boolean(!unary().truthy());
    }
    return comparison();
  }
  Value comparison() {
    const Value left = primary();
    if (take("==")) return boolean(left == primary());
    if (take("!=")) return boolean(!(left == primary()));
    if (take("in")) {
      const Value right = primary();
      if (right.kind == Value::kArray) {
        for (const auto& item : right.items)
          if (item == left) return boolean(true);
        return boolean(false);
      }
      if (right.kind == Value::kString && left.kind == Value::kString) return boolean(right.s.find(left.s) != std::string::npos);
      return boolean(false);
    }
    return left;
  }
  Value primary() {
    skip_space();
    if (at_ >= t_.size()) throw Unreadable();
    const char c = t_[at_];
    if (c == '(') {
      Depth guard(depth_);
      ++at_;
      Value v = expression();
      if (!take(")")) throw Unreadable();
      return v;
    }
    if (c == '[') {
      Depth guard(depth_);
      ++at_;
      Value v;
      v.kind = Value::kArray;
      if (take("]")) return v;
      do v.items.push_back(expression());
      while (take(","));
      if (!take("]")) throw Unreadable();
      return v;
    }
    if (c == '\'' || c == '"') return string_literal(c);
    if (std::isdigit(static_cast<unsigned char>(c))) {
      Value v;
      v.kind = Value::kNumber;
      while (at_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[at_])) || t_[at_] == '.')) v.s += t_[at_++];
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name;
      while (at_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[at_])) || t_[at_] == '_' || t_[at_] == '.'))
        name += t_[at_++];
      if (name == "true" || name == "false") return boolean(name == "true");
      if (name.rfind("env.", 0) != 0 && name != "env") throw Unreadable();
      return environment(name, channel_);
    }
    throw Unreadable();
  }
  Value string_literal(char quote) {
    ++at_;
    Value v;
    v.kind = Value::kString;
    while (at_ < t_.size() && t_[at_] != quote) {
      if (t_[at_] == '\\' && at_ + 1 < t_.size()) ++at_;
      v.s += t_[at_++];
    }
    if (at_ >= t_.size()) throw Unreadable();
    ++at_;
    return v;
  }
  static Value boolean(bool b) {
    Value v;
    v.kind = Value::kBool;
    v.b = b;
    return v;
  }

  const std::string& t_;
  Channel channel_;
  size_t at_ = 0;
  int depth_ = 0;
};

}  // namespace

bool visible(const std::string& filter_expression, Channel channel) {
  bool blank = true;
  for (char c : filter_expression)
    if (!std::isspace(static_cast<unsigned char>(c))) blank = false;
  if (blank) return true;
  if (filter_expression.size() > 4096) return false;
  try {
    return Parser(filter_expression, channel).evaluate();
  } catch (const Unreadable&) {
    return false;
  }
}

Channel channel_from_name(const std::string& name) {
  if (name == "release") return Channel::kRelease;
  if (name == "beta") return Channel::kBeta;
  if (name == "nightly") return Channel::kNightly;
  throw Error(ErrorCode::kInvalidOptions, Phase::kCatalog, "channel must be release, beta or nightly, got '" + name + "'");
}

const char* channel_name(Channel channel) {
  switch (channel) {
    case Channel::kRelease: return "release";
    case Channel::kBeta: return "beta";
    case Channel::kNightly: return "nightly";
  }
  return "release";
}

}  // namespace tformer::catalog
