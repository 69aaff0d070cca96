#include "session.h"

#include <emscripten/bind.h>

#include "error.h"
#include "js_values.h"
#include "results.h"

namespace tformer::wasm {

val JsSession::next() {
  return or_js_error("next", [&] {
    using Need = TranslationSession::Need;
    const Need need = pivot_ ? pivot_->next() : session_->next();
    const val step(pivot_ ? pivot_->step() : 0);
    TranslationSession& session = current();
    // Made into JS values before next()'s views of wasm memory.
    const val completed = take_completed();
    const val ended = when(completed["length"].as<size_t>() > 0, completed);
    if (need == Need::kEncode) {
      const auto& r = session.encode_request();
      return object({{"kind", val("encode")},
                     {"completed", ended},
                     {"step", step},
                     {"batch", val(double(r.batch))},
                     {"length", val(double(r.length))},
                     {"ids", val(emscripten::typed_memory_view(r.ids.size(), r.ids.data()))},
                     {"lengths", val(emscripten::typed_memory_view(r.lengths.size(), r.lengths.data()))}});
    }
    if (need == Need::kProject) {
      size_t rows = 0;
      const float* hidden = session.hidden(&rows);
      return object({{"kind", val("project")},
                     {"completed", ended},
                     {"step", step},
                     {"rows", val(double(rows))},
                     {"candidates", val(double(session.candidates_per_row()))},
                     // A shortlisted batch (TranslationSession::projects_on_cpu_only): only
                     // computeOnCpu() may answer.
                     {"cpuOnly", val(session.projects_on_cpu_only())},
                     {"hidden", val(emscripten::typed_memory_view(rows * session.d_model(), hidden))}});
    }
    return object({{"kind", val("done")}, {"completed", ended}, {"step", step}});
  });
}

void JsSession::provide_encoder_output(const val& states) {
  or_js_error("provideEncoderOutput", [&] {
    const size_t n = copy_in(Phase::kProvideEncoderOutput, states);
    current().provide_encoder_output(buffer_.data(), n);
    return true;
  });
}

void JsSession::provide_logits(const val& logits) {
  or_js_error("provideLogits", [&] {
    const size_t n = copy_in(Phase::kProvideLogits, logits);
    current().provide_logits(buffer_.data(), n);
    return true;
  });
}

void JsSession::provide_candidates(const val& rows) {
  or_js_error("provideCandidates", [&] {
    const size_t n = copy_in(Phase::kProvideCandidates, rows);
    current().provide_candidates(buffer_.data(), n);
    return true;
  });
}

void JsSession::compute_on_cpu() {
  or_js_error("computeOnCpu", [&] {
    current().compute_on_cpu();
    return true;
  });
}

val JsSession::results() {
  return or_js_error("results", [&] {
    return array_of(pivot_ ? pivot_->results() : session_->results(), [&](const Translation& t) { return to_js(t, options_); });
  });
}

val JsSession::take_completed() {
  return array_of(pivot_ ? pivot_->take_completed() : session_->take_completed(), [&](const CompletedSentence& c) { return to_js(c, options_); });
}

size_t JsSession::copy_in(Phase call, const val& array) {
  if (!array.instanceof(val::global("Float32Array"))) throw Error(ErrorCode::kInvalidValues, call, "takes a Float32Array");
  const size_t n = array["length"].as<size_t>();
  buffer_.resize(n);
  val(emscripten::typed_memory_view(n, buffer_.data())).call<void>("set", array);
  return n;
}

EMSCRIPTEN_BINDINGS(session) {
  emscripten::class_<JsSession>("TranslationSession")
      .function("next", &JsSession::next)
      .function("provideEncoderOutput", &JsSession::provide_encoder_output)
      .function("provideLogits", &JsSession::provide_logits)
      .function("provideCandidates", &JsSession::provide_candidates)
      .function("computeOnCpu", &JsSession::compute_on_cpu)
      .function("results", &JsSession::results);
}

}  // namespace tformer::wasm
