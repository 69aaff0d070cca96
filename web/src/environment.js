// What the JavaScript runtime offers, read in one place so that choices made from it (variant,
// backend, threads, cache, how to start the engine's worker) can be tested with a fake one.

export function isNode() {
  return typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
}

export function detectEnvironment() {
  const node = isNode();
  return {
    node,
    // Threads need shared memory; browsers give SharedArrayBuffer only to cross-origin-isolated
    // pages (COOP: same-origin + COEP: require-corp). Node always has it.
    crossOriginIsolated: node ? true : globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    hardwareConcurrency: globalThis.navigator?.hardwareConcurrency || (node ? nodeCpuCount() : 1),
    worker: node ? 'worker_threads' : (typeof Worker === 'function' ? 'web-worker' : null),
    cacheStorage: typeof caches === 'object' && caches !== null ? caches : null,
    webgpu: !!globalThis.navigator?.gpu,
    relaxedSimd: relaxedSimd(),
  };
}

// Whether WebAssembly relaxed SIMD validates here (Chrome 114+, Firefox 120+; not node 20). The
// probe is wasm-feature-detect's (GoogleChromeLabs, Apache-2.0): a function returning
// i8x16.relaxed_swizzle(i8x16.splat(1), i8x16.splat(2)). Inlined rather than imported so that
// the package keeps working unbundled (a bare import would need an import map in the demo).
const RELAXED_SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0,
  65, 1, 253, 15, 65, 2, 253, 15, 253, 128, 2, 11]);
function relaxedSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}

let cpuCount = 0;
function nodeCpuCount() {
  // os.availableParallelism exists from node 18.14; navigator is only in node >= 21.
  return cpuCount || 2;
}

/**
 * Node: reads the CPU count once (Translator.create awaits it). Not at import with a top-level
 * await: a module graph with one cannot be require()d, and CommonJS code should be able to
 * `require('tformer-wasm')` where Node loads ES modules that way (20.19+, 22.12+).
 */
export async function primeEnvironment() {
  if (cpuCount || !isNode()) return;
  try {
    const os = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:os');
    cpuCount = os.availableParallelism?.() ?? os.cpus().length;
  } catch { /* keep the default */ }
}
