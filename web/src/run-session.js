// The decode loop of a translation, driven from JS (webgpu/BRIDGE.md, option B): the wasm engine's
// TranslationSession does its own work in next() and says what it needs; a backend (the WebGPU
// one) answers when it can, wasm (computeOnCpu) answers otherwise. The same loop without a backend
// is the plain wasm path, stepped from JS so that sentences can leave as they end (streaming).
//
//   const results = await runSession(translator.begin(texts, options), backend);
//
// The session is owned by the loop and deleted when it ends (also on error or abort). Nothing is
// held across an await but the session itself: another session may run meanwhile, on the same
// translator or not.

// session: a Module.TranslationSession; backend: a WebGpuBackend or null, or for a session through
// English (Translator.beginThrough) one per step, [first, second], by need.step. Options:
//   signal  an AbortSignal: the translation stops before its next step with signal.reason
//   onCompleted  (completed) => void: called with `need.completed` of each step that ended
//           sentences (streaming; wasm/bindings/session.cc JsSession::next)
//   pause   () => Promise: awaited before each step (the engine in the calling thread lets
//           the thread's other tasks run between steps: in-thread-host.js)
// Resolves to what session.results() returns (one result per input text, as translate()).
export async function runSession(session, backend = null, { signal, onCompleted, pause } = {}) {
  try {
    for (let need = session.next(); ; need = session.next()) {
      if (need.completed) onCompleted?.(need.completed);
      if (need.kind === 'done') break;
      if (pause) await pause();
      signal?.throwIfAborted();
      const answering = Array.isArray(backend) ? backend[need.step] : backend;
      if (answering?.usable && (await answerOnGpu(session, need, answering))) continue;
      session.computeOnCpu();
    }
    return session.results();
  } finally {
    session.delete();
  }
}

// True when the GPU answered. Any failure on the way, the GPU's or a refusal by the session of
// what came back (wrong size, NaN), leaves the request pending and the backend disabled: wasm
// then answers this request and the later ones, so the translation still completes.
async function answerOnGpu(session, need, backend) {
  // A batch decoded with the model's lexical shortlist projects onto a few hundred rows the GPU
  // does not hold: wasm answers it, and the GPU stays in use for the rest.
  if (need.cpuOnly) return false;
  try {
    if (need.kind === 'encode') session.provideEncoderOutput(await backend.encode(need));
    else if (backend.candidates) session.provideCandidates(await backend.projectCandidates(need.hidden, need.rows, need.candidates));
    else session.provideLogits(await backend.project(need.hidden, need.rows));
    return true;
  } catch (error) {
    backend.disable(error);
    return false;
  }
}
