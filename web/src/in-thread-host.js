// The engine in the calling thread, for a scope that cannot start a Worker (a Service Worker):
// the interface of EngineHost (engine-host.js) on an Engine (engine.js) of the single-threaded
// build (select.js chooses it there: the threaded builds start Workers for their threads).
//
// A translation is stepped from here (engine.js, run-session.js), and every STEP_SLICE_MS the
// thread's other tasks run before the next step: a Service Worker goes on answering its events
// while it translates, and an abort or dispose() (a timer, an event) stops the translation before
// its next step. A pair through English is one wasm call, which holds the thread until it ends;
// its result is handed over a task later, so that an abort that came meanwhile still rejects
// the request. After a trap (a WebAssembly.RuntimeError) the next request starts a fresh engine.
import { Engine, EngineTrapError } from './engine.js';
import { EngineStoppedError } from './engine-host.js';

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// How long a translation runs between two yields to the thread's other tasks.
const STEP_SLICE_MS = 10;

function slicer() {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < STEP_SLICE_MS) return;
    await nextTask();
    since = performance.now();
  };
}

export class InThreadHost {
  /** @param {object} start what EngineHost's start message holds (glueUrl, wasmModule, model, marian, ...) */
  constructor(start, { onFallback = null } = {}) {
    this.startMessage = { type: 'start', ...start };
    this.onFallback = onFallback;
    this.engine = null;
    this.ready = null;     // Promise<info> of the current engine
    this.pending = null;   // {controller, reject} of the translation in flight
    this.stopped = null;   // the reason of dispose()
    this.restarts = 0;
  }

  start() {
    this.ready = (async () => {
      let engine;
      try {
        engine = await Engine.create(this.startMessage);
      } catch (e) {
        // As the Worker reports it: what the engine said of a model it could not read.
        const error = new Error(e instanceof Error ? e.message : String(e), { cause: e });
        if (typeof e?.refusal === 'string') error.modelRefusal = e.refusal;
        throw error;
      }
      if (this.stopped) {
        await engine.dispose();
        throw this.stopped;
      }
      engine.onFallback = (message) => {
        this.startMessage = { ...this.startMessage, backend: 'wasm', backendReason: 'fell back after a GPU failure' };
        this.onFallback?.(message);
      };
      // A Marian folder was imported: a fresh engine (after a trap) loads the .tfm.
      if (engine.importedTfm) this.startMessage = { ...this.startMessage, model: engine.importedTfm, marian: null };
      if (engine.importedSecondTfm) this.startMessage = { ...this.startMessage, second: engine.importedSecondTfm, secondMarian: null };
      engine.importedTfm = null;
      engine.importedSecondTfm = null;
      this.engine = engine;
      return engine.info();
    })();
    this.ready.catch(() => {});
    return this.ready;
  }

  /** One translation, as EngineHost.translate: {results, translateMs, backend, gpu}. */
  async translate(texts, options, onSentences = null) {
    if (this.pending) throw new Error('InThreadHost.translate: a translation is already running');
    const controller = new AbortController();
    let rejectPending;
    const interrupted = new Promise((_, reject) => { rejectPending = reject; });
    const pending = { controller, reject: rejectPending };
    this.pending = pending;
    try {
      return await Promise.race([interrupted, (async () => {
        if (!this.ready) this.start();
        await this.ready;
        const engine = this.engine;
        if (!engine) throw new EngineStoppedError('the translation engine stopped before the request could start');
        controller.signal.throwIfAborted();
        let result;
        try {
          result = await engine.translate(texts, options, controller.signal,
            onSentences && ((sentences) => { if (!controller.signal.aborted) onSentences(sentences); }), slicer());
        } catch (e) {
          if (e instanceof EngineTrapError) {
            engine.dispose();
            this.engine = null;
            this.ready = null;
            this.restarts++;
            throw new EngineStoppedError(`the translation engine failed: ${e.message}; it was replaced by a fresh one`);
          }
          throw e;
        }
        await nextTask();
        controller.signal.throwIfAborted();
        return result;
      })()]);
    } finally {
      if (this.pending === pending) this.pending = null;
    }
  }

  /** Rejects the running translation with `reason` (a stream stops before its next step). */
  interrupt(reason) {
    const pending = this.pending;
    this.pending = null;
    pending?.controller.abort(reason);
    pending?.reject(reason);
  }

  dispose(reason) {
    this.stopped = reason;
    this.interrupt(reason);
    this.engine?.dispose();
    this.engine = null;
    this.ready = Promise.reject(reason);
    this.ready.catch(() => {});
  }
}
