// Module.TranslationSession: one translation driven from JS, step by step (made by
// Translator.begin(); web/src/session.js drives it, web/src/webgpu/BRIDGE.md):
//   const s = t.begin(["Hallo Welt."], options);
//   for (let need = s.next(); need.kind !== 'done'; need = s.next()) {
//     if (need.kind === 'encode') s.provideEncoderOutput(states);  // need: batch, length, ids, lengths
//     else s.provideLogits(logits);         // need: rows, hidden, candidates (or provideCandidates)
//     // or s.computeOnCpu() for either
//   }
//   const results = s.results(); s.delete();
// need.completed: the sentences that ended in that next() call, if any (streaming). A pair through
// English (Translator.beginThrough) is one session over both models: need.step says whose request
// it is (0: the first model's, 1: the second's; always 0 for one model). The typed
// arrays in `need` alias wasm memory: valid until the next call into the module (memory may
// grow), so they are copied (e.g. by queue.writeBuffer) before any await.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <vector>

#include "tformer/pivot.h"
#include "tformer/translator.h"
#include "translate_options.h"

namespace tformer::wasm {

class JsSession {
 public:
  JsSession(std::unique_ptr<TranslationSession> session, const RequestOptions& options)
      : session_(std::move(session)), options_(options) {}
  JsSession(std::unique_ptr<PivotSession> pivot, const RequestOptions& options) : pivot_(std::move(pivot)), options_(options) {}

  // {kind: 'encode', batch, length, ids: Int32Array, lengths: Int32Array}
  // | {kind: 'project', rows, hidden: Float32Array [rows * dModel], candidates, cpuOnly} | {kind: 'done'}
  // and `completed` when sentences ended in this call: [{segment, paragraph, index, separator,
  // sentence}] (TranslationSession::take_completed; sentence as in results()).
  emscripten::val next();
  // states: Float32Array [batch * length * dModel]
  void provide_encoder_output(const emscripten::val& states);
  // logits: Float32Array [rows * vocabSize]
  void provide_logits(const emscripten::val& logits);
  // rows: Float32Array [rows * (3 + 2 * candidates)]: see TranslationSession::provide_candidates
  void provide_candidates(const emscripten::val& rows);
  void compute_on_cpu();
  emscripten::val results();

 private:
  emscripten::val take_completed();
  // The session whose request is pending: the one model's, or that of either step of a pivot.
  TranslationSession& current() { return pivot_ ? pivot_->pending() : *session_; }
  // One copy from the JS array into wasm memory, refused (kInvalidValues, as the call) unless a
  // Float32Array.
  size_t copy_in(Phase call, const emscripten::val& array);

  std::unique_ptr<TranslationSession> session_;  // one model
  std::unique_ptr<PivotSession> pivot_;          // or a pair through English
  RequestOptions options_;
  std::vector<float> buffer_;
};

}  // namespace tformer::wasm
