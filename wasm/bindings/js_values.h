// JS values from C++ values: the one way the bindings build what they return.
#pragma once

#include <emscripten/val.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace tformer::wasm {

using emscripten::val;

// An Int32Array or Float32Array copy: typed_memory_view would alias wasm memory that is freed
// after the call (or moved when memory grows).
template <typename T>
val int_array(const std::vector<T>& v) {
  return val::global("Int32Array").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

inline val float_array(const std::vector<float>& v) {
  return val::global("Float32Array").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

inline val string_array(const std::vector<std::string>& v) {
  val a = val::array();
  for (const auto& s : v) a.call<void>("push", s);
  return a;
}

template <typename T, typename F>
val array_of(const std::vector<T>& items, F&& to_js) {
  val a = val::array();
  for (const T& item : items) a.call<void>("push", to_js(item));
  return a;
}

// {key: value, ...}; a field whose value is undefined is left out.
inline val object(std::initializer_list<std::pair<const char*, val>> fields) {
  val o = val::object();
  for (const auto& [key, value] : fields)
    if (!value.isUndefined()) o.set(key, value);
  return o;
}

// An optional field of object(): present when `present`.
inline val when(bool present, val value) { return present ? value : val::undefined(); }

// What JS's typeof says of a value.
inline std::string type_of(const val& v) { return v.typeOf().as<std::string>(); }

inline bool is_array(const val& v) { return val::global("Array").call<bool>("isArray", v); }

// A plain object (not null, not an array).
inline bool is_object(const val& v) { return type_of(v) == "object" && !v.isNull() && !is_array(v); }

// A short description of a value, for errors: "the string \"x\"", "number 1.5", "null", "an array".
std::string describe(const val& v);

}  // namespace tformer::wasm
