// One translation on the WebGPU backend and on wasm, for the node and the browser end-to-end tests
// (the same code runs in both): the wasm module's own translate(), the session loop on wasm only,
// and the session loop with the WebGPU backend answering, optionally with a simulated GPU failure
// mid-translation. Returns plain data (it crosses from a page to node) for the tests to assert on.
import { WebGpuBackend } from '../../web/src/webgpu/backend.js';
import { runSession } from '../../web/src/run-session.js';
import { GpuOutOfMemoryError } from '../../web/src/webgpu/runtime.js';

// The parts of a result that must agree: texts, and per sentence the best hypothesis's tokens and
// score (and the n-best tokens).
export function summarize(results) {
  return results.map((r) => ({
    text: r.text,
    sentences: r.sentences.map((s) => ({
      tokens: Array.from(s.tokens),
      score: s.score,
      nbest: s.nbest?.map((h) => Array.from(h.tokens)),
    })),
  }));
}

// Failures injected into a live backend, as the GPU would produce them:
//   'lose-device' destroys the device during the third projection (a real loss on a real device:
//                 the pending readback fails, later work is refused);
//   'oom'         the allocation of bigger projection scratch (beam search widening the batch after
//                 its first step) reports out of memory, as guardMemory does when the device's
//                 out-of-memory error scope fires.
function injectFault(backend, fault) {
  if (fault === 'lose-device') {
    let calls = 0;
    for (const name of ['project', 'projectCandidates']) {
      const method = backend[name].bind(backend);
      backend[name] = (...args) => {
        const answer = method(...args);
        if (++calls === 3) backend.runtime.device.destroy();
        return answer;
      };
    }
  } else if (fault === 'oom') {
    const runtime = backend.runtime;
    const guard = runtime.guardMemory.bind(runtime);
    let growths = 0;
    runtime.guardMemory = async (what, fn) => {
      if (what === 'projection scratch' && ++growths > 1) throw new GpuOutOfMemoryError(`GPU out of memory while allocating ${what} (simulated)`);
      return guard(what, fn);
    };
  } else if (fault) {
    throw new Error(`unknown fault ${fault}`);
  }
}

// Module: a loaded tformer wasm module; bytes: Uint8Array of a .tfm; options: TranslateOptions of
// the Embind API. gpu/runtime: as WebGpuBackend.create takes them.
// candidates: whether a step reads back each row's best candidates (default) or full logits.
export async function translateOnBothBackends(Module, bytes, texts, options, { threads = 1, gpu, runtime, fault, candidates = true } = {}) {
  const translator = new Module.Translator(bytes, threads);
  let backend = null;
  try {
    const fallbacks = [];
    const made = await WebGpuBackend.create(translator, { gpu, runtime, candidates, onFallback: (e) => fallbacks.push(e.message) });
    if (!made.backend) return { adapter: null, reason: made.reason };
    backend = made.backend;
    const t0 = performance.now();
    const wasm = translator.translate(texts, options);
    const t1 = performance.now();
    const loop = await runSession(translator.begin(texts, options), null);
    injectFault(backend, fault);
    backend.resetCounters();
    const t2 = performance.now();
    const webgpu = await runSession(translator.begin(texts, options), backend);
    const t3 = performance.now();
    const info = backend.runtime.adapter.info ?? {};
    return {
      adapter: `${info.vendor || '?'} ${info.architecture || ''} ${info.description || ''}`.trim(),
      wasm: summarize(wasm),
      loop: summarize(loop),
      webgpu: summarize(webgpu),
      ms: { wasm: t1 - t0, webgpu: t3 - t2 },
      counters: backend.counters,
      usable: backend.usable,
      failure: backend.failure?.message ?? null,
      fallbacks,
      uncapturedErrors: fault ? 0 : backend.runtime.errors.length,
    };
  } finally {
    backend?.destroy();
    translator.delete();
  }
}
