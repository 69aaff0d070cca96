// The Emscripten glue of a wasm build (dist/<file>.mjs): the factory that instantiates its module.
// It is import()ed from its URL where it runs, except where a static import provided it: a Service
// Worker refuses import() (polyfill-service-worker.js provides the single-threaded build's glue).
//
// In browsers the threaded builds' glue starts its pthreads from Emscripten's <file>.worker.js,
// which finds the glue again by URL. Both are told where they are (locateFile,
// mainScriptUrlOrBlob) rather than left to look beside each other: a bundler gives each file a
// name of its own (a hash), and may inline a small one as a data: URL.
import { isNode, served } from './environment.js';

const provided = new Map();  // variant -> factory
const pthreadScripts = new Map();  // glue URL -> URL of its pthread script
const scriptUrls = new Map();  // pthread script URL -> Promise of the URL a Worker can start from

/** Makes `factory` (a glue's default export) the one used for `variant` in this realm. */
export function provideGlue(variant, factory) {
  if (typeof factory !== 'function') throw new TypeError(`provideGlue: the glue of '${variant}' must be its default export, a function`);
  provided.set(variant, factory);
}

/** The engine's Worker: the pthread script of the glue at `glueUrl` (its start message says it). */
export function usePthreadScript(glueUrl, scriptUrl) {
  if (glueUrl && scriptUrl) pthreadScripts.set(glueUrl, scriptUrl);
}

/** The factory of `variant`'s glue: the one provided, else the default export of the module at `url`. */
export async function glueFactory(variant, url) {
  const factory = provided.get(variant);
  if (factory) return factory;
  url = await served(url);
  let create;
  try {
    ({ default: create } = await import(/* webpackIgnore: true */ /* @vite-ignore */ url));
  } catch (e) {
    throw new Error(`could not load the engine's JavaScript ${shortUrl(url)}: ${e?.message ?? e}`, { cause: e });
  }
  const pthreadScript = pthreadScripts.get(url);
  if (!pthreadScript || isNode()) return create;
  const scriptUrl = await startableScript(pthreadScript);
  return (options) => create({
    locateFile: (file) => (file.endsWith('.worker.js') ? scriptUrl : new URL(file, url).href),
    mainScriptUrlOrBlob: url,
    ...options,
  });
}

// A Worker starts only from a script of its page's origin: a data: URL (a file a bundler inlined)
// or a script served elsewhere (wasmBase on another origin, with CORS) runs from a blob: URL of
// its text. Once per script in a realm.
function startableScript(url) {
  const here = globalThis.location?.href;
  if (!here) return url;
  const parsed = new URL(url, here);
  if (parsed.protocol !== 'data:' && parsed.origin === new URL(here).origin) return url;
  if (!scriptUrls.has(url)) {
    const promise = (async () => {
      let response;
      try {
        response = await fetch(url);
      } catch (e) {
        throw new Error(`could not load the engine's thread script ${shortUrl(url)}: ${e.message}`, { cause: e });
      }
      if (!response.ok) throw new Error(`could not load the engine's thread script ${shortUrl(url)}: HTTP ${response.status}`);
      return URL.createObjectURL(new Blob([await response.text()], { type: 'text/javascript' }));
    })();
    scriptUrls.set(url, promise);
    promise.catch(() => scriptUrls.delete(url));
  }
  return scriptUrls.get(url);
}

// A URL for messages: a data: URL cut to its start.
export function shortUrl(url) {
  const s = String(url);
  return s.startsWith('data:') && s.length > 60 ? `${s.slice(0, 48)}... (a data: URL of ${s.length} characters)` : s;
}
