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
  };
}

let cpuCount = 0;
function nodeCpuCount() {
  // os.availableParallelism exists from node 18.14; navigator is only in node >= 21.
  return cpuCount || 2;
}

// Node: read the CPU count once (an ES module cannot require synchronously; this runs at import).
if (isNode()) {
  try {
    const os = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:os');
    cpuCount = os.availableParallelism?.() ?? os.cpus().length;
  } catch { /* keep the default */ }
}
