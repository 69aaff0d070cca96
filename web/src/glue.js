// The Emscripten glue of a wasm build (dist/<file>.mjs): the factory that instantiates its module.
// It is import()ed from its URL where it runs, except where a static import provided it: a Service
// Worker refuses import() (polyfill-service-worker.js provides the single-threaded build's glue).
const provided = new Map();  // variant -> factory

/** Makes `factory` (a glue's default export) the one used for `variant` in this realm. */
export function provideGlue(variant, factory) {
  if (typeof factory !== 'function') throw new TypeError(`provideGlue: the glue of '${variant}' must be its default export, a function`);
  provided.set(variant, factory);
}

/** The factory of `variant`'s glue: the one provided, else the default export of the module at `url`. */
export async function glueFactory(variant, url) {
  const factory = provided.get(variant);
  if (factory) return factory;
  const { default: create } = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  return create;
}
