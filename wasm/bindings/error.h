// Errors leave the bindings one way: as a JS Error worded for JS callers, with the engine's error
// (tformer/error.h) as its properties, so that no caller needs to read the message:
//   call    the JS call that failed ('translate', 'begin', 'provideLogits', 'new Translator', ...)
//   code    what is wrong (tformer::code_name: 'invalid_options', 'invalid_text', 'text_too_long',
//           'wrong_state', 'invalid_values', 'invalid_model', ...)
//   phase   where the engine was (tformer::phase_name: 'load', 'request', 'translate', 'next', ...)
//   detail  the engine's own words, naming no call
//   input   the input text at fault, from 0 (only when one is)
// The message: "translate(): input text 2 is not valid UTF-8: byte 0xC3 at offset 4"; a session
// call names itself and what fits instead, in JS names: "provideLogits() needs a projection
// request, but no request is pending (call next())".
#pragma once

#include <string>

#include "tformer/error.h"

namespace tformer::wasm {

// Throws `error` as the JS Error of the JS call `call`. Throwing a JS exception unwinds the wasm
// stack without running C++ destructors: everything it needs is copied to static storage first,
// and the caller holds no C++ object that needs destroying (see or_js_error).
[[noreturn]] void throw_js_error(const char* call, const Error& error);

// Runs f and returns its value, or throws its error as the JS Error of `call`. Every entry point
// from JS that can fail goes through here.
template <typename F>
auto or_js_error(const char* call, F&& f) -> decltype(f()) {
  // The error is copied out of the catch block: the JS exception is thrown once no C++ exception
  // object or local is alive.
  static thread_local Error pending("");
  try {
    return f();
  } catch (const Error& e) {
    pending = e;
  } catch (const std::exception& e) {
    pending = Error(ErrorCode::kInternal, Phase::kTranslate, e.what());
  } catch (...) {
    pending = Error(ErrorCode::kInternal, Phase::kTranslate, "unknown engine error");
  }
  throw_js_error(call, pending);
}

}  // namespace tformer::wasm
