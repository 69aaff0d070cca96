// Browser side of the end-to-end test (session.html, and session_worker.mjs in a module Worker):
// loads a wasm variant and a model over HTTP and runs translateOnBothBackends.
import { translateOnBothBackends } from './session_check.mjs';

const modules = {};

export async function runCheck({ variant, model, texts, options, threads = 1, fault = null }) {
  try {
    modules[variant] ??= import(`/build-wasm/wasm/tformer-${variant}.mjs`).then(({ default: create }) => create());
    const Module = await modules[variant];
    const bytes = new Uint8Array(await (await fetch(model)).arrayBuffer());
    const result = await translateOnBothBackends(Module, bytes, texts, options, { threads, fault });
    return { crossOriginIsolated: self.crossOriginIsolated, threadsAvailable: typeof SharedArrayBuffer !== 'undefined', ...result };
  } catch (error) {
    return { error: `${error.message}\n${error.stack}` };
  }
}
