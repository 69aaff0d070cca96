// The one place where the engine is chosen: which wasm build (variant), how many threads, and
// which compute backend. Everything else asks `chooseEngine` and reports what it returned.
//
// A backend is an entry of BACKENDS: `available(env)` says whether it can run here (a string is
// the reason it cannot). WebGPU is listed but not integrated yet: asking for it falls back to
// wasm with a warning that `Translator.info.warnings` shows. Plugging a WebGPU engine in means
// making its `available` true and giving `engine.js` the code path; no caller changes.

export const BACKENDS = {
  wasm: {
    available: () => true,
  },
  webgpu: {
    available: (env) => (env.webgpu ? 'the WebGPU backend is not integrated in this version of tformer-wasm'
      : 'WebGPU is not available in this environment'),
  },
};

// Order in which 'auto' tries backends. WebGPU goes first once it is integrated (issue 8 adds
// a model-size rule to 'auto').
const AUTO_ORDER = ['wasm'];

export const VARIANTS = {
  threaded: { file: 'tformer-mt', description: 'SIMD + threads (needs SharedArrayBuffer)' },
  single: { file: 'tformer-st', description: 'SIMD, single thread' },
};

// The threaded build starts a pool of min(8, cores) workers (wasm/CMakeLists.txt); a translator
// with N threads uses N - 1 of them besides its own thread.
export const MAX_THREADS = 9;

/**
 * @param {{threads?: number, backend?: string, variant?: string}} options as given to Translator.create
 * @param {ReturnType<import('./environment.js').detectEnvironment>} env
 * @returns {{variant: 'threaded'|'single', threads: number, backend: 'wasm', requestedBackend: string, warnings: string[]}}
 */
export function chooseEngine(options, env) {
  const warnings = [];
  const requestedBackend = options.backend ?? 'auto';
  let backend = null;
  if (requestedBackend === 'auto') {
    backend = AUTO_ORDER.find((name) => BACKENDS[name].available(env) === true);
  } else {
    const verdict = BACKENDS[requestedBackend].available(env);
    if (verdict === true) backend = requestedBackend;
    else {
      backend = 'wasm';
      warnings.push(`backend '${requestedBackend}' was asked for, using 'wasm' instead: ${verdict}`);
    }
  }

  const canThread = env.crossOriginIsolated && env.sharedArrayBuffer;
  let variant = options.variant ?? 'auto';
  if (variant === 'auto') variant = canThread ? 'threaded' : 'single';
  else if (variant === 'threaded' && !canThread) {
    variant = 'single';
    warnings.push('the threaded build needs SharedArrayBuffer (a cross-origin-isolated page: ' +
      'COOP same-origin + COEP require-corp); using the single-threaded build');
  }

  let threads;
  if (variant === 'single') {
    threads = 1;
    if (options.threads > 1) {
      warnings.push(`${options.threads} threads were asked for, but the single-threaded build runs on one` +
        (canThread ? '' : ' (this page is not cross-origin isolated)'));
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
  return { variant, threads, backend, requestedBackend, warnings };
}
