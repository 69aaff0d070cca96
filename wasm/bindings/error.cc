#include "error.h"

#include <emscripten.h>

#include <algorithm>
#include <vector>

namespace tformer::wasm {
namespace {

// The JS name of a session call: the calls JS makes, and the engine's answers that next() returns.
const char* js_name(Phase call) {
  switch (call) {
    case Phase::kProvideEncoderOutput: return "provideEncoderOutput";
    case Phase::kProvideLogits: return "provideLogits";
    case Phase::kProvideCandidates: return "provideCandidates";
    case Phase::kComputeOnCpu: return "computeOnCpu";
    case Phase::kResults: return "results";
    default: return "next";  // next(), and what its answer carries (encode request, hidden, candidates...)
  }
}

std::string js_message(const char* call, const Error& e) {
  if (is_session_call(e.phase())) {
    std::string message = std::string(js_name(e.phase())) + "() " + e.detail();
    std::vector<std::string> fit;
    for (Phase p : e.calls_that_fit()) {
      const std::string name = std::string(js_name(p)) + "()";
      if (std::find(fit.begin(), fit.end(), name) == fit.end()) fit.push_back(name);
    }
    if (!fit.empty()) message += " (call " + join_alternatives(fit) + ")";
    return message;
  }
  const std::string subject = e.input() ? "input text " + std::to_string(*e.input() + 1) + " " : "";
  return std::string(call) + "(): " + subject + e.detail();
}

// What throw_js_error hands to JS, kept past the unwinding.
struct JsError {
  std::string call, message, code, phase, detail;
  int input = -1;
};
thread_local JsError js_error;

}  // namespace

EM_JS(void, throw_error, (const char* call, const char* message, const char* code, const char* phase, const char* detail, int input), {
  const error = new Error(UTF8ToString(message));
  error.call = UTF8ToString(call);
  error.code = UTF8ToString(code);
  error.phase = UTF8ToString(phase);
  error.detail = UTF8ToString(detail);
  if (input >= 0) error.input = input;
  throw error;
});

void throw_js_error(const char* call, const Error& e) {
  js_error = {call, js_message(call, e), code_name(e.code()), phase_name(e.phase()), e.detail(),
              e.input() ? int(*e.input()) : -1};
  throw_error(js_error.call.c_str(), js_error.message.c_str(), js_error.code.c_str(), js_error.phase.c_str(),
              js_error.detail.c_str(), js_error.input);
  __builtin_unreachable();
}

}  // namespace tformer::wasm
