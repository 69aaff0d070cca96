#include "js_values.h"

namespace tformer::wasm {

std::string describe(const val& v) {
  if (v.isNull()) return "null";
  if (is_array(v)) return "an array";
  const std::string type = type_of(v);
  if (type == "string") {
    std::string s = v.as<std::string>();
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return "the string " + val::global("JSON").call<std::string>("stringify", s);
  }
  if (type == "object") return "an object";
  return type + " " + val::global("String")(v).as<std::string>();
}

}  // namespace tformer::wasm
