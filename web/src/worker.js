// The Worker that runs the engine: a module Worker in browsers, a worker_threads Worker in Node.
// It owns one Engine and answers the host's messages (engine-host.js) one at a time, after saying
// {type: 'listening'} (the host sends nothing before, so no message can arrive before the handler):
//   {type: 'start', glueUrl, pthreadScriptUrl, wasmModule, model, marian, second, secondMarian, threads, variant, backend, backendReason, requestedBackend}
//                                           -> {type: 'ready', info, tfm, secondTfm} | {type: 'failed', message, modelRefusal}
//                                              (tfm: the .tfm imported from a Marian folder `marian`, else null;
//                                              secondTfm: that of `secondMarian`, the en->target model of a pair through English)
//                                              (modelRefusal: what the engine said of a model it could not read, else null)
//   {type: 'translate', id, texts, options} -> {type: 'result', id, results, translateMs, backend, gpu, memoryHits}
//                                              | {type: 'error', id, message, code, input, trap} (a TranslationError's fields, else code null;
//                                                trap: the engine trapped and runs nothing more)
//       with stream: true, before the result: {type: 'sentences', id, sentences} as sentences end
//       ([{segment, paragraph, index, separator, sentence}], engine.js translate)
// and, when the GPU fails and wasm takes over (at most once per engine, before the result of the
// translation it happened in): {type: 'fallback', message}. {type: 'cancel', id} stops a
// translation stepped from here (a stream, or any on WebGPU) before its next step (it answers
// 'error'). For an engine on WebGPU in Node (engine-host.js, `cooperative`): {type: 'stop'} stops
// the translation, frees the engine and answers {type: 'stopped'}.
//   {type: 'memory', id, action: 'stats'|'save'|'clear'} -> {type: 'memory', id, value} | {type: 'memory', id, error}
//                                              (the translation memory, memory.js; in turn with the translations)
// Translations run one after another (a chain), so a cancelled one ends before the next starts.
// A translation occupies this thread, never the page's (on WebGPU it awaits the GPU between
// steps; the host sends one request at a time). To stop one made in a single wasm call, the host
// terminates the Worker.
// No top-level await: a bundler that takes this Worker for a classic script (webpack's minifier)
// stops on one.
import { Engine, EngineTrapError } from './engine.js';
import { usePthreadScript } from './glue.js';

const port = connect();
let engine = null;
let chain = Promise.resolve();
let current = null;        // { id, controller } of the running translation
const cancelled = new Set();  // ids cancelled before they started

port.onMessage(async (message) => {
  if (message.type === 'start') {
    try {
      usePthreadScript(message.glueUrl, message.pthreadScriptUrl);
      engine = await Engine.create(message);
      engine.onFallback = (text) => port.post({ type: 'fallback', message: text });
      const tfm = engine.importedTfm;
      const secondTfm = engine.importedSecondTfm;
      engine.importedTfm = null;
      engine.importedSecondTfm = null;
      port.post({ type: 'ready', info: engine.info(), tfm, secondTfm }, [tfm?.buffer, secondTfm?.buffer].filter(Boolean));
    } catch (e) {
      port.post({ type: 'failed', message: messageOf(e), modelRefusal: e?.refusal ?? null });
    }
  } else if (message.type === 'translate') {
    chain = chain.then(() => translate(message));
  } else if (message.type === 'memory') {
    chain = chain.then(() => memoryCall(message));
  } else if (message.type === 'cancel') {
    if (current?.id === message.id) current.controller.abort();
    else cancelled.add(message.id);
  } else if (message.type === 'stop') {
    current?.controller.abort();
    chain = chain.then(async () => {
      await engine?.dispose();
      engine = null;
      port.post({ type: 'stopped' });
    });
  }
});
port.post({ type: 'listening' });

async function translate(message) {
  if (cancelled.delete(message.id)) return;
  const controller = new AbortController();
  current = { id: message.id, controller };
  try {
    if (!engine) throw new Error('the engine is not started');
    const onSentences = message.stream ? (sentences) => port.post({ type: 'sentences', id: message.id, sentences }) : null;
    const { results, translateMs, backend, gpu, memoryHits } = await engine.translate(message.texts, message.options, controller.signal, onSentences);
    port.post({ type: 'result', id: message.id, results, translateMs, backend, gpu, memoryHits }, transferables(results));
  } catch (e) {
    // A TranslationError's fields travel with it (a structured clone keeps only an Error's message).
    // After a trap the engine is done for: the host replaces this Worker.
    port.post({ type: 'error', id: message.id, message: messageOf(e), code: e?.code ?? null, input: e?.input ?? null,
      trap: e instanceof EngineTrapError });
  } finally {
    current = null;
  }
}

async function memoryCall({ id, action }) {
  try {
    if (!engine?.memory) throw new Error('the translator has no translation memory (create it with the option memory)');
    const memory = engine.memory;
    if (action === 'clear') await memory.clear();
    else if (action === 'save') await memory.save();
    port.post({ type: 'memory', id, value: await memory.report() });
  } catch (e) {
    port.post({ type: 'memory', id, error: messageOf(e) });
  }
}

function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

// The typed arrays of a result are moved to the host, not copied.
function transferables(results) {
  const buffers = new Set();
  const add = (a) => { if (ArrayBuffer.isView(a)) buffers.add(a.buffer); };
  for (const r of results) {
    add(r.tokens);
    add(r.alignment?.weights);
    for (const s of r.sentences) {
      add(s.tokens);
      add(s.sourceTokens);
      add(s.alignment?.weights);
      for (const h of s.nbest ?? []) add(h.tokens);
    }
  }
  return [...buffers];
}

// Node's modules come from process.getBuiltinModule (Node 20.16+), not import(): a bundler making
// this Worker for browsers has no `node:` import to resolve.
function connect() {
  if (typeof process === 'object' && process.versions?.node) {
    const { parentPort } = process.getBuiltinModule('node:worker_threads');
    if (typeof navigator === 'undefined') {
      // The threaded build sizes its pool of workers as min(8, navigator.hardwareConcurrency),
      // else 8; Node < 21 has no navigator, and starting 8 workers on a 2-core machine costs
      // seconds. This thread is the engine's own: tell it the real core count.
      const os = process.getBuiltinModule('node:os');
      globalThis.navigator = { hardwareConcurrency: os.availableParallelism?.() ?? os.cpus().length };
    }
    if (parentPort) {
      return {
        onMessage: (handler) => parentPort.on('message', handler),
        post: (message, transfer) => parentPort.postMessage(message, transfer),
      };
    }
  }
  return {
    onMessage: (handler) => { self.onmessage = (event) => handler(event.data); },
    post: (message, transfer) => self.postMessage(message, transfer),
  };
}
