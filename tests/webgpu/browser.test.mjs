// The same modules in headless Chromium (SwiftShader WebGPU), on a page and in a module Worker:
// a two-layer encoder against the CPU encoder, with one submission and one readback.
// Needs Debian's chromium and npm playwright-core (web/node_modules); skipped without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserSkip as skip, serveRepository, launchChromium } from './chromium.mjs';

// Runs in the page or the worker: everything it needs comes from the served repository.
async function encoderCheck(base) {
  const gpuModule = await import(`${base}/web/src/webgpu/index.js`);
  const cpu = await import(`${base}/tests/webgpu/cpu_reference.mjs`);
  const { runtime, reason } = await gpuModule.acquireGpu();
  if (!runtime) return { adapter: null, reason };
  const cfg = { heads: 4, d_model: 32, ffn_dim: 72, encoder_layers: 2, norm: 'post', activation: 'relu', layer_norm_eps: 1e-5 };
  const tensor = cpu.randomEncoderWeights(cfg, 5);
  const encoder = await gpuModule.GpuEncoder.create(runtime, cpu.encoderPlan(cfg), tensor);
  const [batch, length, lengths] = [2, 5, [5, 2]];
  const x = cpu.rng(3).uniform(batch * length * cfg.d_model);
  runtime.resetCounters();
  const out = await encoder.encode(x, lengths, batch, length);
  const cmp = cpu.compare(out, cpu.encoder(cfg, tensor, x, lengths, batch, length),
    { width: cfg.d_model, rowsMask: (row) => row % length < lengths[Math.floor(row / length)] });
  return { adapter: runtime.adapter.info.vendor, nmse: cmp.nmse, counters: { ...runtime.counters }, errors: runtime.errors.length };
}

test('WebGPU encoder in headless Chromium: page and module Worker', { skip }, async (t) => {
  const server = await serveRepository();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const source = `(${encoderCheck.toString()})`;
    const inPage = await page.evaluate(`${source}(location.origin)`);
    const inWorker = await page.evaluate(async (src) => {
      const code = `const check = ${src}; check(${JSON.stringify(location.origin)}).then((r) => postMessage(r), (e) => postMessage({ error: String(e) }));`;
      const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
      const worker = new Worker(url, { type: 'module' });
      return new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); });
    }, source);
    for (const [where, r] of [['page', inPage], ['worker', inWorker]]) {
      if (r.adapter === null) return t.skip(`no WebGPU in Chromium's ${where}: ${r.reason}`);
      assert.equal(r.error, undefined, `${where}: ${r.error}`);
      assert.ok(r.nmse < 1e-6, `${where}: nmse ${r.nmse}`);
      assert.equal(r.counters.submissions, 1);
      assert.equal(r.counters.readbacks, 1);
      assert.equal(r.errors, 0);
      t.diagnostic(`${where}: ${r.adapter}, nmse ${r.nmse.toExponential(1)}, ${r.counters.dispatches} dispatches, 1 submission, 1 readback`);
    }
  } finally {
    await browser.close();
    server.close();
  }
});
