// What the JavaScript runtime offers, read in one place so that choices made from it (variant,
// backend, threads, cache, how to start the engine's worker) can be tested with a fake one; and
// where the package's files are served when a bundler left them behind (below).

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
    const os = process.getBuiltinModule('node:os');  // not import(): bundlers for browsers see no `node:` import
    cpuCount = os.availableParallelism?.() ?? os.cpus().length;
  } catch { /* keep the default */ }
}

// ---- where the package's own files are served, when a bundler left them behind -----------------
//
// The package names its files with literal URLs: `new URL('../dist/<file>', import.meta.url)` for
// the wasm builds (wasm-files.js) and `new Worker(new URL('./worker.js', import.meta.url), ...)`
// for its engine's Worker (engine-host.js). Vite and webpack copy those files into their output
// and rewrite the URLs. esbuild and Rollup bundle the JavaScript only, and Vite's dev server
// pre-bundles dependencies into node_modules/.vite/deps/: there the URLs still say what was
// written, relative to the bundle, where nothing is. The package is then looked for as Node looks
// for it, in node_modules/tformer-wasm/ of a folder and of each folder above it: the page's first
// (an app's index.html usually sits beside its node_modules/), then the bundle's; a candidate is
// taken when the package.json there is this package's. Serving the project folder (node_modules
// included) is then enough.
// (Here, not in wasm-files.js: the engine's Worker imports this module, and wasm-files.js's
// literal URLs would make a bundler copy the wasm builds a second time for that Worker.)

const PACKAGE_NAME = 'tformer-wasm';

let stale = null;    // {dist, bundle}: the dist/ URL as written, and the bundle's URL
let finding = null;  // Promise<string> of the package's folder URL

/** wasm-files.js: this module's URLs are as written in a bundle (`bundle`) that left dist/ behind. */
export function leftBehind(dist, bundle) {
  stale = { dist, bundle };
}

// The folder URL of the package as served, where a bundler left its files behind; else null.
async function packageFolder() {
  if (!stale) return null;
  if (!finding) {
    finding = find(stale.bundle);
    finding.catch(() => { finding = null; });  // a later call looks again
  }
  return finding;
}

/** `url` as served: a file of the package's dist/ that a bundler left behind is taken from where the package is. */
export async function served(url) {
  if (!stale || !String(url).startsWith(stale.dist)) return url;
  return new URL(`dist/${String(url).slice(stale.dist.length)}`, await packageFolder()).href;
}

/** The engine's Worker script where a bundler left it behind (the package's src/worker.js), else null. */
export async function leftBehindWorkerScript() {
  const folder = await packageFolder();
  return folder && new URL('src/worker.js', folder).href;
}

async function find(bundle) {
  const candidates = [];
  const add = (url) => { if (!candidates.includes(url)) candidates.push(url); };
  for (const start of [globalThis.document?.baseURI ?? globalThis.location?.href, bundle]) {
    if (!start) continue;
    let url;
    try {
      url = new URL('./', start);
    } catch {
      continue;
    }
    if (!/^https?:$/.test(url.protocol)) continue;
    // Inside node_modules (Vite's node_modules/.vite/deps/): the package beside, first.
    const inside = url.pathname.lastIndexOf('/node_modules/');
    if (inside >= 0) add(new URL(`${url.pathname.slice(0, inside)}/node_modules/${PACKAGE_NAME}/`, url).href);
    for (;;) {
      add(new URL(`node_modules/${PACKAGE_NAME}/`, url).href);
      if (url.pathname === '/') break;
      url = new URL('../', url);
    }
  }
  for (const folder of candidates) {
    try {
      const response = await fetch(new URL('package.json', folder), { credentials: 'same-origin' });
      if (response.ok && (await response.json()).name === PACKAGE_NAME) return folder;
    } catch { /* not there (or not JSON: a server that answers every path with its page) */ }
  }
  throw new Error(`the package's files are not beside the bundle ${bundle}, which holds its code (a bundler that ` +
    `copies no files, or a bundle moved away from them), and no ${PACKAGE_NAME} was found in the node_modules/ ` +
    `folders above it or the page (tried ${candidates.join(', ')}): serve the folder holding node_modules/, or ` +
    `copy node_modules/${PACKAGE_NAME}/ (its package.json, src/ and dist/) to node_modules/${PACKAGE_NAME}/ beside the page`);
}
