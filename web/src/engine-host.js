// The page's (or Node's) side of the engine Worker: starts it with the model, sends it one
// translation at a time, and replaces it when a running translation must stop. A translation
// stepped from JS (a stream, or any on WebGPU) stops between two steps: the Worker is told to
// cancel it and the engine goes on. A single wasm call cannot be interrupted from outside, so
// aborting one terminates its Worker (its pthreads go with it) and starts a fresh one from the
// model bytes kept here and the compiled module, which costs one engine start (instantiation +
// loading the model) but no download or compilation.
// A Worker that dies on its own (out of memory, a crash) or whose engine traps (a
// WebAssembly.RuntimeError, after which the instance is in no known state) is replaced the same
// way, and the request it was running fails with EngineStoppedError.
import { TranslationError } from './errors.js';
import { pthreadScriptOf } from './wasm-files.js';
import { served, leftBehindWorkerScript } from './environment.js';
import { shortUrl } from './glue.js';

export class EngineStoppedError extends Error {
  constructor(message) {
    super(message);
    this.name = 'EngineStoppedError';
  }
}

export class EngineHost {
  /**
   * @param {{glueUrl: string, wasmModule: WebAssembly.Module, model: Uint8Array, threads: number, variant: string, backend: string}} start
   * @param {'web-worker'|'worker_threads'} kind
   */
  constructor(start, kind, { onFallback = null } = {}) {
    this.startMessage = { type: 'start', ...start };
    // (message) => void: the engine's GPU failed and wasm took over. Engines started after that
    // (a restart after an abort) start on wasm.
    this.onFallback = onFallback;
    this.kind = kind;
    this.worker = null;
    this.starting = null;  // {resolve, reject} of the start in progress
    this.ready = null;     // Promise<info> of the current Worker's engine
    this.pending = null;   // {id, resolve, reject, onSentences, stepped} of the translation in flight
    this.waitingForEngine = 0;  // translate() calls waiting for the engine's start
    // id -> () => void: the Worker's answer to that translation arrived. Until then the Worker
    // stays referenced, also after a cooperative cancel rejected the caller: in node a GPU step
    // may still await a readback, and a thread ended under a pending mapAsync aborts the process.
    this.answers = new Map();
    this.nextId = 1;
    this.restarts = 0;
    this.engineBackend = null;  // 'wasm' | 'webgpu' of the running engine
    this.memoryCalls = new Map();  // id -> {resolve, reject} of the translation memory's calls (memory())
    this.located = false;  // whether the start message names the files as served (locateFiles)
  }

  // Node: terminating a worker_threads Worker in the middle of a call into npm webgpu (Dawn)
  // aborts the whole process (napi_throw from a terminating thread; seen with webgpu 0.6.2). A
  // Worker whose engine is on WebGPU is therefore stopped cooperatively: its translation stops
  // before the next step (runSession's signal: the Worker is free between GPU steps), and on
  // dispose the Worker frees the GPU and says 'stopped' before it is terminated. Browsers
  // terminate Workers safely at any time.
  get cooperative() {
    return this.kind === 'worker_threads' && this.engineBackend === 'webgpu';
  }

  /** Starts a Worker and the engine in it; resolves with the engine's info. */
  start() {
    const starting = {};
    this.ready = new Promise((resolve, reject) => Object.assign(starting, { resolve, reject }));
    this.ready.catch(() => {});  // reported to whoever awaits it
    this.starting = starting;
    this.launch(starting);
    return this.ready;
  }

  async launch(starting) {
    let worker;
    try {
      await this.locateFiles();
      worker = await openWorker(this.kind);
    } catch (e) {
      starting.reject(e);
      return;
    }
    if (this.starting !== starting) {  // stopped meanwhile
      worker.terminate();
      return;
    }
    this.worker = worker;
    worker.listen((message) => {
      if (message.type === 'stopped') {  // a cooperative stop is complete
        worker.terminate();
        worker.unref();
        return;
      }
      if (message.type === 'result' || message.type === 'error') {
        const answered = this.answers.get(message.id);
        this.answers.delete(message.id);
        answered?.();
      }
      if (this.worker !== worker) return;
      if (message.type === 'memory') {
        const call = this.memoryCalls.get(message.id);
        this.memoryCalls.delete(message.id);
        if (call) worker.unref();
        if (message.error !== undefined) call?.reject(new Error(message.error));
        else call?.resolve(message.value);
        return;
      }
      if (message.type === 'listening') {
        worker.listening = true;
        worker.post(this.startMessage);
      } else if (message.type === 'ready') {
        this.starting = null;
        if (message.tfm) {
          // A Marian folder was imported: restarts load the .tfm; the folder's files are let go.
          this.startMessage = { ...this.startMessage, model: message.tfm, marian: null };
        }
        if (message.secondTfm) this.startMessage = { ...this.startMessage, second: message.secondTfm, secondMarian: null };
        this.engineBackend = message.info.backend;
        starting.resolve(message.info);
      } else if (message.type === 'fallback') {
        this.startMessage = { ...this.startMessage, backend: 'wasm', backendReason: `fell back after a GPU failure` };
        this.engineBackend = 'wasm';
        this.onFallback?.(message.message);
      } else if (message.type === 'failed') {
        const error = new Error(message.message);
        if (message.modelRefusal !== null) error.modelRefusal = message.modelRefusal;  // see Translator.create
        this.stopWorker(error);
      } else if (message.type === 'sentences') {
        if (this.pending?.id === message.id) this.pending.onSentences?.(message.sentences);
      } else if (message.type === 'error' && message.trap) {
        // The engine trapped: it runs nothing more. The request fails (and one sent after a
        // cancelled one, which would run on it); the next ones go to a fresh engine.
        const error = new EngineStoppedError(`the translation engine failed: ${message.message}; it was replaced by a fresh one`);
        this.pending?.reject(error);
        this.pending = null;
        this.stopWorker(error);
        this.restarts++;
        this.start();
      } else if (message.type === 'result' || message.type === 'error') {
        const p = this.pending;
        if (!p || p.id !== message.id) return;
        this.pending = null;
        if (message.type === 'result') p.resolve(message);
        else if (message.code !== null) p.reject(new TranslationError(message.message, { code: message.code, input: message.input }));
        else p.reject(new Error(message.message));
      }
    }, async (reason) => {
      // The Worker died on its own: during its start, or under a translation.
      if (this.worker !== worker) return;
      if (this.starting === starting) reason = await this.whyNotStarted(worker, reason);
      if (this.worker !== worker) return;
      const error = new EngineStoppedError(`the translation engine stopped: ${reason}`);
      this.pending?.reject(error);
      this.pending = null;
      this.stopWorker(error);
      this.ready = null;  // the next request starts a fresh engine
    });
  }

  // The glue and the pthread script as served (environment.js, leftBehind: where a bundler left them
  // behind, they come from where the package is), in the start message; once.
  async locateFiles() {
    if (this.located) return;
    const { glueUrl } = this.startMessage;
    const pthreadScript = pthreadScriptOf(glueUrl);
    this.startMessage = { ...this.startMessage, glueUrl: await served(glueUrl), pthreadScriptUrl: pthreadScript && await served(pthreadScript) };
    this.located = true;
  }

  // A browser reports a Worker that could not load a script with an event that names nothing:
  // the file at fault is looked for among those the start loads, so that the error names its URL.
  async whyNotStarted(worker, reason) {
    if (this.kind !== 'web-worker') return reason;
    const files = worker.listening ? [['its JavaScript', this.startMessage.glueUrl], ['its thread script', this.startMessage.pthreadScriptUrl]]
      : [['its Worker script', worker.script]];
    for (const [what, url] of files) {
      if (!url) continue;
      let status;
      try {
        const response = await fetch(url, { credentials: 'same-origin' });
        if (response.ok) continue;
        status = `HTTP ${response.status}`;
      } catch (e) {
        status = e.message;
      }
      return `${what} ${shortUrl(url)} could not be loaded (${status})`;
    }
    if (!worker.listening) {
      return `its Worker (${worker.script ? shortUrl(worker.script) : "the package's src/worker.js, as the bundler made it"}, ` +
        `or a module it imports) could not be loaded or run: ${reason}`;
    }
    return reason;
  }

  /**
   * Runs one translation; only one at a time (the Translator's queue sees to it). onSentences:
   * streaming (worker.js 'sentences'), called as sentences end, before the promise resolves.
   */
  async translate(texts, options, onSentences = null) {
    if (!this.ready) this.start();
    this.waitingForEngine++;
    try {
      await this.ready;
    } finally {
      this.waitingForEngine--;
    }
    if (this.pending) throw new Error('EngineHost.translate: a translation is already running');
    const worker = this.worker;
    if (!worker) throw new EngineStoppedError('the translation engine stopped before the request could start');
    const id = this.nextId++;
    worker.ref();
    this.answers.set(id, () => worker.unref());
    return new Promise((resolve, reject) => {
      // A streamed translation is stepped from JS in the Worker (engine.js), so it can stop
      // between steps (interrupt()).
      this.pending = { id, resolve, reject, onSentences, stepped: onSentences !== null };
      worker.post({ type: 'translate', id, texts, options, stream: onSentences !== null });
    });
  }

  /**
   * The translation memory's calls (worker.js 'memory'): 'stats', 'save' or 'clear'; resolves
   * with its report ({entries, bytes, hits, misses, database, saved}). They run in turn with the
   * translations, in the Worker.
   */
  async memory(action) {
    if (!this.ready) this.start();
    await this.ready;
    const worker = this.worker;
    if (!worker) throw new EngineStoppedError('the translation engine stopped before the call could start');
    const id = this.nextId++;
    worker.ref();  // in Node, the process waits for the answer (an idle Worker is unref'd)
    return new Promise((resolve, reject) => {
      this.memoryCalls.set(id, { resolve, reject });
      worker.post({ type: 'memory', id, action });
    });
  }

  /**
   * Stops the running translation, rejecting it with `reason`: between two steps where it is
   * stepped from JS (a stream) or must be (see `cooperative`), else by starting a fresh engine.
   */
  interrupt(reason) {
    if (this.worker && (this.cooperative || this.pending?.stepped)) {
      // The engine stays; the translation stops before its next step (the Worker's 'cancel').
      const pending = this.pending;
      this.pending = null;
      pending?.reject(reason);
      if (pending) this.worker.post({ type: 'cancel', id: pending.id });
      return;
    }
    // The translation has answered (its caller has yet to see it): nothing runs that could stop.
    if (!this.pending && this.waitingForEngine === 0) return;
    this.pending?.reject(reason);
    this.pending = null;
    this.stopWorker(reason);
    this.restarts++;
    this.start();
  }

  // Terminates the Worker; a start in progress rejects with `reason`.
  stopWorker(reason) {
    this.starting?.reject(reason);
    for (const call of this.memoryCalls.values()) call.reject(reason);
    this.memoryCalls.clear();
    this.starting = null;
    const worker = this.worker;
    this.worker = null;
    this.answers.clear();  // a terminated Worker answers nothing (and keeps nothing alive)
    worker?.terminate();
  }

  dispose(reason) {
    this.pending?.reject(reason);
    this.pending = null;
    if (this.cooperative && this.worker) {
      const worker = this.worker;
      this.worker = null;
      this.starting = null;
      worker.ref();  // alive until 'stopped': its GPU work ends first (see `answers`)
      worker.post({ type: 'stop' });  // answered by 'stopped', then terminated (listen above)
    } else {
      this.stopWorker(reason);
    }
    this.ready = Promise.reject(reason);
    this.ready.catch(() => {});
  }
}

// This module's URL, read apart from a `new URL(...)`: Vite and webpack take
// `new URL('./worker.js', import.meta.url)` outside `new Worker(...)` for a file to copy as it is.
const moduleUrl = import.meta.url;

// One interface over a browser Worker and a Node worker_threads Worker.
async function openWorker(kind) {
  if (kind === 'worker_threads') {
    // Node's modules come from process.getBuiltinModule (Node 20.16+), not import(): a bundler
    // for browsers has no `node:` import to resolve.
    const { Worker: NodeWorker } = process.getBuiltinModule('node:worker_threads');
    // Node's options pass on to the Worker, but --input-type (`node --input-type=module -e ...`)
    // makes a Worker started from a file fail.
    const worker = new NodeWorker(new URL('./worker.js', moduleUrl), { execArgv: process.execArgv.filter((a) => !a.startsWith('--input-type')) });
    let refs = 1;  // referenced while starting; afterwards only while a translation runs
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      listen(onMessage, onDeath) {
        worker.on('message', (message) => {
          if (message.type === 'ready' && --refs === 0) worker.unref();  // an idle translator does not keep Node running
          onMessage(message);
        });
        worker.on('error', (e) => onDeath(e?.message ?? String(e)));
        worker.on('exit', (code) => onDeath(`its worker thread exited (code ${code})`));
      },
      terminate: () => { worker.terminate(); },
      ref: () => { if (refs++ === 0) worker.ref(); },
      unref: () => { if (--refs === 0) worker.unref(); },
    };
  }
  // One expression, `new Worker(new URL('./worker.js', import.meta.url), {type: 'module'})`: the form
  // Vite and webpack recognise, bundle as a Worker of its own and rewrite. esbuild and Rollup leave
  // it as written; the package then starts its src/worker.js where it found it (environment.js, leftBehind).
  const leftBehind = await leftBehindWorkerScript();
  const worker = leftBehind ? new Worker(leftBehind, { type: 'module', name: 'tformer-wasm' })
    : new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'tformer-wasm' });
  // Its URL where it is known, for messages: where the package is not bundled, or was left behind.
  const own = new URL(moduleUrl);
  const unbundled = own.origin === globalThis.location?.origin && /\/src\/engine-host\.js$/.test(own.pathname);
  const script = leftBehind ?? (unbundled ? new URL('./worker.js', own).href : null);
  return {
    script,
    listening: false,
    post: (message, transfer) => worker.postMessage(message, transfer ?? []),
    listen(onMessage, onDeath) {
      worker.onmessage = (event) => onMessage(event.data);
      worker.onerror = (event) => { event.preventDefault?.(); onDeath(event.message || 'an error in the Worker'); };
      worker.onmessageerror = () => onDeath('a message could not be read');
    },
    terminate: () => worker.terminate(),
    ref: () => {},
    unref: () => {},
  };
}
