#include "marian/yaml.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>

#include "tformer/error.h"
#include "util/printable.h"
#include "util/utf8.h"

namespace tformer::marian {
namespace {

// What both readers refuse, in the events of one document. The first problem is kept and the
// rest of the document ignored; it is reported after the parse, so that a syntax error later in
// the text is reported as such. (Nothing is expanded meanwhile: an alias is one event.)
class CheckedHandler : public YAML::EventHandler {
 public:
  explicit CheckedHandler(const std::string& what) : what_(what) {}
  const std::string& problem() const { return problem_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail(mark, "a YAML alias (*name); Marian's files do not use them (write the value out)");
  }

 protected:
  void fail(const YAML::Mark& mark, const std::string& msg) {
    if (problem_.empty()) problem_ = what_ + ": line " + std::to_string(mark.line + 1) + ": " + msg;
  }
  bool failed() const { return !problem_.empty(); }
  // false (and the problem kept) when the document nests too deeply.
  bool enter(const YAML::Mark& mark) {
    if (++depth_ > kMaxYamlDepth) fail(mark, "YAML nested more than " + std::to_string(kMaxYamlDepth) + " levels deep");
    return !failed();
  }
  void leave() { --depth_; }

  const std::string& what_;
  std::string problem_;
  int depth_ = 0;
};

// Builds the document as JSON: every scalar as text, ~ / null / an empty value as null.
class TreeBuilder : public CheckedHandler {
 public:
  using CheckedHandler::CheckedHandler;
  Json root;
  bool empty = true;

  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { add(mark, nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    add(mark, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, Json::array());
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    open(mark, Json::object());
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    Json value;
    bool have_key = false;
    std::string key;
    YAML::Mark mark;
  };

  void add(const YAML::Mark& mark, Json v) {
    if (failed()) return;
    if (stack_.empty()) {
      root = std::move(v);
      empty = false;
      return;
    }
    Open& top = stack_.back();
    if (top.value.is_array()) {
      top.value.push_back(std::move(v));
    } else if (!top.have_key) {
      if (!v.is_string()) return fail(mark, "an option name is not a plain value");
      top.key = v.get<std::string>();
      top.have_key = true;
    } else {
      top.value[top.key] = std::move(v);
      top.have_key = false;
    }
  }
  void open(const YAML::Mark& mark, Json container) {
    if (failed()) return;
    if (!stack_.empty() && stack_.back().value.is_object() && !stack_.back().have_key) {
      return fail(mark, "an option name is not a plain value");
    }
    if (!enter(mark)) return;
    stack_.push_back({std::move(container), false, {}, mark});
  }
  void close() {
    if (failed()) return;
    Json done = std::move(stack_.back().value);
    const YAML::Mark mark = stack_.back().mark;
    stack_.pop_back();
    leave();
    add(mark, std::move(done));
  }

  std::vector<Open> stack_;
};

// A vocabulary's entries (piece, id text) in file order, without building a tree.
class VocabHandler : public CheckedHandler {
 public:
  using CheckedHandler::CheckedHandler;
  std::vector<std::pair<std::string, std::string>> entries;
  bool mapping = false;

  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { scalar(mark, std::string(), true); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    scalar(mark, value, false);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    not_an_entry(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    if (depth_ > 0) return not_an_entry(mark);
    enter(mark);
    mapping = true;
  }
  void OnMapEnd() override { leave(); }

 private:
  void not_an_entry(const YAML::Mark& mark) {
    fail(mark, depth_ == 0 ? "a vocabulary must be a non-empty mapping piece: id" : "a vocabulary entry is not a piece: id pair");
  }
  void scalar(const YAML::Mark& mark, const std::string& value, bool null) {
    if (failed()) return;
    // A plain ~, null or empty key or id is YAML's null: no piece and no id.
    if (depth_ == 0 || null) return not_an_entry(mark);
    if (!have_key_) {
      key_ = value;
      have_key_ = true;
      return;
    }
    entries.emplace_back(std::move(key_), value);
    have_key_ = false;
  }
  std::string key_;
  bool have_key_ = false;
};

template <class Handler>
void parse(const std::string& text, const std::string& what, Handler& handler, const char* kind) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(handler);
  } catch (const YAML::DeepRecursion& e) {
    throw Error(what + ": line " + std::to_string(e.mark.line + 1) + ": YAML nested more than " +
                std::to_string(kMaxYamlDepth) + " levels deep");
  } catch (const YAML::Exception& e) {
    throw Error(what + ": invalid " + kind + "YAML (" + printable(e.what()) + ")");
  }
  if (!handler.problem().empty()) throw Error(handler.problem());
}

}  // namespace

Json parse_options(const std::string& text, const std::string& what) {
  if (find_invalid_utf8(text) != std::string::npos) throw Error(what + ": options are not UTF-8 text");
  TreeBuilder tree(what);
  parse(text, what, tree, "");
  if (tree.empty || tree.root.is_null()) return Json::object();
  if (!tree.root.is_object()) throw Error(what + ": expected a YAML mapping of options");
  return std::move(tree.root);
}

std::vector<std::string> read_vocab_yml(const std::string& text, const std::string& what) {
  if (find_invalid_utf8(text) != std::string::npos) throw Error(what + ": vocabulary is not UTF-8");
  VocabHandler table(what);
  parse(text, what, table, "vocabulary ");
  if (!table.mapping || table.entries.empty()) throw Error(what + ": a vocabulary must be a non-empty mapping piece: id");
  // Ids 0..n-1, each once: a table of n entries fills n slots.
  const size_t n = table.entries.size();
  std::vector<std::string> pieces(n);
  std::vector<bool> filled(n, false);
  long long outside = -1;  // an id past the table, if any
  for (auto& [piece, value] : table.entries) {
    // An id: decimal digits (what Marian's writer puts there), surrounding spaces allowed.
    const size_t a = value.find_first_not_of(" \t"), b = value.find_last_not_of(" \t");
    const size_t end = a == std::string::npos ? a : value.find_first_not_of("0123456789", a);
    const bool digits = a != std::string::npos && b - a < 18 && (end == std::string::npos || end > b);
    if (!digits) {
      throw Error(what + ": piece '" + printable(piece) + "' has id '" + printable(value) + "', not an integer");
    }
    const long long id = std::stoll(value.substr(a, b - a + 1));
    if (id >= static_cast<long long>(n)) {
      outside = id;
      continue;
    }
    if (filled[size_t(id)]) {
      throw Error(what + ": id " + std::to_string(id) + " is given to both '" + printable(pieces[size_t(id)]) + "' and '" +
                  printable(piece) + "'");
    }
    filled[size_t(id)] = true;
    pieces[size_t(id)] = std::move(piece);
  }
  if (outside >= 0) {
    const size_t missing = size_t(std::find(filled.begin(), filled.end(), false) - filled.begin());
    throw Error(what + ": ids must be 0.." + std::to_string(n - 1) + " without gaps (id " + std::to_string(missing) +
                " is missing)");
  }
  return pieces;
}

}  // namespace tformer::marian
