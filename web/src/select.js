// The one place where the engine is chosen: which wasm build (variant), how many threads, and
// which compute backend. Everything else asks `chooseEngine` / `decideBackend` and reports what
// they returned.
//
// Backends. 'wasm': the C++ engine in WebAssembly does everything. 'webgpu': the same engine
// drives a step-wise TranslationSession whose encoder and output projection run as WGSL on
// WebGPU (src/webgpu/, BRIDGE.md); decoder layers and search stay in wasm.
//
// The choice is made in two steps, because what it depends on is known at two places:
// 1. `chooseEngine(options, env)` on the page (or Node's main thread), synchronously, from the
//    environment: whether a GPU path may be tried at all (`backend: 'webgpu'`) or wasm is
//    certain (`backend: 'wasm'`).
// 2. `decideBackend(...)` in the engine's Worker (which owns the GPU device), once the adapter
//    and the model's shape are known.
//
// The rule for 'auto' (step 2):
// - Node: always wasm (a GPU in Node needs the optional npm package `webgpu`, and servers are
//   better served by native builds); ask for 'webgpu' explicitly to use it.
// - Browsers: WebGPU only when there is an adapter that is real hardware: never a fallback
//   adapter (`adapter.info.isFallbackAdapter`, or the older `adapter.isFallbackAdapter`) nor a
//   software rasteriser recognised by name (SwiftShader, llvmpipe/lavapipe, Microsoft Basic
//   Render Driver): those run WGSL on the CPU, slower than wasm's XNNPACK kernels;
// - and only with a model large enough to gain: d_model x vocab_size >= AUTO_MIN_PROJECTION
//   (2^23, e.g. d 512 with a 16k vocabulary, or d 256 with 32k). That product is the work of
//   the output projection per decoded row, the part of a step the GPU takes over; below it a step's
//   projection costs wasm about as much as the GPU round trip (submission + mapAsync readback)
//   that replaces it. Figures in web/README.md ("Choosing the backend").
// - Otherwise wasm; `info.backendReason` says which condition decided.
// An explicit 'webgpu' uses any adapter, SwiftShader included (that is how the tests run it),
// and any model size; without an adapter or device it runs on wasm with a warning.

export const BACKENDS = {
  wasm: {
    available: () => true,
  },
  webgpu: {
    // Node: the engine's Worker imports the optional npm package `webgpu` (Dawn) itself.
    available: (env) => (env.webgpu || env.node ? true : 'WebGPU is not available in this environment'),
  },
};

/** d_model x vocab_size from which 'auto' uses a hardware GPU (see above). */
export const AUTO_MIN_PROJECTION = 2 ** 23;

// Software adapters, by the names they report (vendor, architecture, device, description).
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|software|microsoft basic render/i;

/**
 * What an adapter says about itself, read defensively (GPUAdapterInfo fields differ between
 * browsers and versions; tests pass plain objects).
 * @returns {{vendor: string, architecture: string, device: string, description: string, fallback: boolean, software: boolean}}
 */
export function describeAdapter(adapter) {
  const info = adapter?.info ?? {};
  const field = (name) => (typeof info[name] === 'string' ? info[name] : '');
  const summary = {
    vendor: field('vendor'),
    architecture: field('architecture'),
    device: field('device'),
    description: field('description'),
    fallback: info.isFallbackAdapter === true || adapter?.isFallbackAdapter === true,
  };
  summary.software = summary.fallback ||
    SOFTWARE_ADAPTER.test([summary.vendor, summary.architecture, summary.device, summary.description].join(' '));
  return summary;
}

/** One line naming an adapter, for info.adapter and messages. */
export function adapterName(summary) {
  if (!summary) return null;
  const parts = [summary.vendor, summary.architecture, summary.device, summary.description].filter(Boolean);
  return [...new Set(parts)].join(' ') + (summary.fallback ? ' (fallback adapter)' : '') || 'unnamed adapter';
}

/**
 * Step 2 of the choice, in the engine: wasm or WebGPU for this adapter and model.
 * @param {{requested: 'auto'|'webgpu', node: boolean, adapter: object|null, config: {d_model: number, vocab_size: number}}} input
 *   adapter: a GPUAdapter (or a fake with the same `info`), null when there is none
 * @returns {{backend: 'wasm'|'webgpu', reason: string, adapter: object|null}} adapter: describeAdapter's summary
 */
export function decideBackend({ requested, node, adapter, config }) {
  const summary = adapter ? describeAdapter(adapter) : null;
  const work = config.d_model * config.vocab_size;
  const size = `d_model x vocab = ${config.d_model} x ${config.vocab_size} = ${work}`;
  if (requested === 'webgpu') {
    if (!adapter) return { backend: 'wasm', reason: 'webgpu was asked for, but there is no WebGPU adapter', adapter: null };
    return { backend: 'webgpu', reason: 'asked for', adapter: summary };
  }
  if (node) return { backend: 'wasm', reason: "auto in Node is wasm (ask for 'webgpu' to use npm webgpu)", adapter: summary };
  if (!adapter) return { backend: 'wasm', reason: 'auto: no WebGPU adapter', adapter: null };
  if (summary.software) {
    return { backend: 'wasm', reason: `auto: the WebGPU adapter is a software one (${adapterName(summary)}), slower than wasm`, adapter: summary };
  }
  if (work < AUTO_MIN_PROJECTION) {
    return { backend: 'wasm', reason: `auto: the model is too small to gain from the GPU (${size} < 2^23)`, adapter: summary };
  }
  return { backend: 'webgpu', reason: `auto: hardware adapter and a large model (${size} >= 2^23)`, adapter: summary };
}

export const VARIANTS = {
  relaxed: { file: 'tformer-mtr', description: 'relaxed SIMD + threads (needs SharedArrayBuffer and relaxed SIMD)' },
  threaded: { file: 'tformer-mt', description: 'SIMD + threads (needs SharedArrayBuffer)' },
  single: { file: 'tformer-st', description: 'SIMD, single thread' },
};

// The threaded build starts a pool of min(8, cores) workers (wasm/CMakeLists.txt); a translator
// with N threads uses N - 1 of them besides its own thread.
export const MAX_THREADS = 9;

/**
 * @param {{threads?: number, backend?: string, variant?: string}} options as given to Translator.create
 * @param {ReturnType<import('./environment.js').detectEnvironment>} env
 * @returns {{variant: 'relaxed'|'threaded'|'single', threads: number, backend: 'wasm'|'webgpu', requestedBackend: string, warnings: string[]}}
 *   backend 'webgpu': a GPU may be used (the engine decides with decideBackend); 'wasm': certain
 */
export function chooseEngine(options, env) {
  const warnings = [];
  const requestedBackend = options.backend ?? 'auto';
  // 'webgpu' here means: the engine may use the GPU, decideBackend() settles it in the Worker.
  let backend;
  let backendReason = null;  // set when wasm is already certain
  if (requestedBackend === 'wasm') {
    backend = 'wasm';
    backendReason = 'asked for';
  } else if (requestedBackend === 'auto') {
    backend = env.node || !env.webgpu ? 'wasm' : 'webgpu';
    if (env.node) backendReason = "auto in Node is wasm (ask for 'webgpu' to use npm webgpu)";
    else if (!env.webgpu) backendReason = 'auto: no WebGPU in this browser';
  } else {
    const verdict = BACKENDS[requestedBackend].available(env);
    if (verdict === true) backend = requestedBackend;
    else {
      backend = 'wasm';
      backendReason = verdict;
      warnings.push(`backend '${requestedBackend}' was asked for, using 'wasm' instead: ${verdict}`);
    }
  }

  // Without Workers (a Service Worker) the engine runs in the calling thread, single-threaded: the
  // threaded builds start Workers for their threads.
  const noWorkers = env.worker === null;
  const canThread = env.crossOriginIsolated && env.sharedArrayBuffer && !noWorkers;
  // A cross-origin-isolated page in a browser that still gives no SharedArrayBuffer (WebKitGTK):
  // the headers are right, and threads are impossible all the same; say so rather than leave the
  // single-threaded build unexplained.
  const isolatedWithoutSharedMemory = env.crossOriginIsolated && !env.sharedArrayBuffer && !noWorkers;
  const noSharedMemory = 'this page is cross-origin isolated, but this browser gives it no SharedArrayBuffer';
  // The relaxed-SIMD build is the threaded one with faster int8 and f32 kernels: preferred
  // wherever the browser validates relaxed SIMD (Translator.create falls back to 'threaded' when
  // the package was built without it).
  let variant = options.variant ?? 'auto';
  if (variant === 'auto') {
    variant = canThread ? (env.relaxedSimd ? 'relaxed' : 'threaded') : 'single';
    if (isolatedWithoutSharedMemory) warnings.push(`${noSharedMemory}: the single-threaded build runs`);
  } else if (variant === 'relaxed' && canThread && !env.relaxedSimd) {
    variant = 'threaded';
    warnings.push('the relaxed-SIMD build was asked for, but this runtime does not validate relaxed SIMD; ' +
      'using the threaded build');
  }
  if ((variant === 'threaded' || variant === 'relaxed') && !canThread) {
    warnings.push(noWorkers ? `the ${variant} build starts Workers for its threads, which cannot be started here; using the single-threaded build`
      : isolatedWithoutSharedMemory ? `the ${variant} build needs SharedArrayBuffer: ${noSharedMemory}; using the single-threaded build`
        : `the ${variant} build needs SharedArrayBuffer (a cross-origin-isolated page: ` +
      'COOP same-origin + COEP require-corp); using the single-threaded build');
    variant = 'single';
  }

  let threads;
  if (variant === 'single') {
    threads = 1;
    if (options.threads > 1) {
      warnings.push(`${options.threads} threads were asked for, but the single-threaded build runs on one` +
        (canThread || isolatedWithoutSharedMemory ? '' : ' (this page is not cross-origin isolated)'));
    }
  } else {
    const cores = Math.max(1, env.hardwareConcurrency || 1);
    threads = options.threads ?? Math.min(cores, 4);
    const limit = Math.min(MAX_THREADS, Math.min(8, cores) + 1);
    if (threads > limit) {
      warnings.push(`${threads} threads were asked for; the pool of this machine allows ${limit}`);
      threads = limit;
    }
  }
  return { variant, threads, backend, backendReason, requestedBackend, warnings };
}
