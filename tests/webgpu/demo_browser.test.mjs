// The demo page on WebGPU in headless Chromium (--enable-unsafe-webgpu: SwiftShader without a GPU):
// opened with ?backend=webgpu it translates through the package's Worker on WebGPU, says so
// (Compute line, info.backend, the adapter), and gives the same translations as ?backend=wasm for a
// few sentences; ?backend=auto stays on wasm there (SwiftShader is a fallback adapter); the Compute
// switch changes the backend and the URL. On a software adapter the page warns before and while it
// runs on WebGPU; rates read with sensible precision; the footer names the compute path and the
// CPU kernels apart. Test models (fixtures) keep it short on SwiftShader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { browserSkip, launchChromium } from './chromium.mjs';
import { FIXTURES, fixtureFile, lines, repoRoot } from './models.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const built = existsSync(path.join(repoRoot, 'web', 'dist', 'tformer-mt.wasm'));
const skip = browserSkip || (!built && 'no web/dist (npm run build in web/)');
const MODELS = ['fixture-marian', 'fixture-tutorial'];
let server;
let browser;

before(async () => {
  if (skip) return;
  server = await startServer({ port: 0, isolation: true, fixtures: 'always', quiet: true });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function waitForState(page, state, timeout = 180_000) {
  await page.waitForFunction((s) => document.body.dataset.state === s || document.body.dataset.state === 'error', state, { timeout });
  const now = await page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').textContent }));
  assert.equal(now.state, state, `page state (error shown: ${now.error})`);
}

// Types each sentence into the demo and reads the translation shown (and what computed it).
async function translateAll(page, sentences) {
  const out = [];
  for (const s of sentences) {
    await page.fill('#source', s);
    await page.waitForFunction((x) => document.getElementById('output').dataset.source === x && document.body.dataset.state === 'done',
      s, { timeout: 180_000 });
    out.push(await page.evaluate(() => ({ text: document.getElementById('output').textContent, backend: document.getElementById('output').dataset.backend })));
  }
  return out;
}

async function openDemo(model, backend) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  // Nothing may fail (the page names its favicon, so the browser asks for no /favicon.ico), but
  // the probe for the optional relaxed-SIMD build where web/dist lacks it.
  const relaxedBuilt = existsSync(path.join(repoRoot, 'web', 'dist', 'tformer-mtr.wasm'));
  page.on('response', (r) => {
    if (r.status() >= 400 && (relaxedBuilt || !/\/tformer-mtr\./.test(r.url()))) errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  await page.goto(`${server.url}?sw=off&plain&model=${model}&backend=${backend}`);  // plain: the model's own output
  await waitForState(page, 'done');
  return { page, errors };
}

function modelDir(id) {
  return FIXTURES.find((f) => `fixture-${f}` === id) ?? id.replace(/^fixture-/, '');
}

for (const model of MODELS) {
  test(`demo ${model}: ?backend=webgpu gives the translations of ?backend=wasm`, { skip, timeout: 900_000 }, async (t) => {
    const sentences = lines(fixtureFile(modelDir(model), 'input.txt')).slice(0, 3);
    const runs = {};
    for (const backend of ['wasm', 'webgpu']) {
      const { page, errors } = await openDemo(model, backend);
      const info = await page.evaluate(() => window.translatorInfo);
      if (backend === 'webgpu' && info.backend !== 'webgpu') {
        await page.close();
        return t.skip(`no WebGPU in this Chromium: ${info.backendReason}`);
      }
      assert.equal(info.backend, backend, info.backendReason);
      assert.equal(info.requestedBackend, backend);
      assert.equal(await page.inputValue('#backend'), backend, 'the Compute switch shows the URL\'s backend');
      const compute = await page.textContent('#compute');
      assert.match(compute, backend === 'webgpu' ? /^compute: WebGPU .*adapter: / : /^compute: wasm \(CPU\)/);
      runs[backend] = await translateAll(page, sentences);
      assert.ok(runs[backend].every((r) => r.backend === backend), `every sentence computed on ${backend}`);
      const timing = await page.textContent('#timing');
      assert.match(timing, new RegExp(`on ${backend === 'webgpu' ? 'WebGPU' : 'wasm'}( \\(software adapter: slow\\))?$`));
      // A rate is never rounded to 0: three significant digits below 100 tokens/s.
      assert.match(timing, /, (\d{3,}|\d{1,2}(\.\d{1,2})?|0\.\d+) tokens\/s/);
      assert.doesNotMatch(timing, / 0 tokens\/s/);
      const engine = await page.textContent('#engine');
      assert.match(engine, /^engine: wasm .* build.*, CPU kernels: XNNPACK/);
      assert.doesNotMatch(engine, /backend: webgpu/);
      if (backend === 'webgpu' && info.adapter && /swiftshader/i.test(info.adapter)) {
        // SwiftShader: a warning before (from the page's own adapter) and while it runs.
        assert.equal(await page.isVisible('#gpu-warning'), true);
        assert.match(await page.textContent('#gpu-warning'), /software adapter .* about 100 times slower than wasm/);
        assert.match(timing, /\(software adapter: slow\)$/);
      }
      assert.deepEqual(errors, []);
      if (backend === 'webgpu') t.diagnostic(`${compute}`);
      await page.close();
    }
    assert.deepEqual(runs.webgpu.map((r) => r.text), runs.wasm.map((r) => r.text));
    assert.deepEqual(runs.wasm.map((r) => r.text), lines(fixtureFile(modelDir(model), 'expected.greedy.txt')).slice(0, 3));
  });
}

test("demo: 'auto' stays on wasm with SwiftShader (a fallback adapter); the Compute switch moves to WebGPU", { skip, timeout: 600_000 }, async () => {
  const { page, errors } = await openDemo('fixture-marian', 'auto');
  let info = await page.evaluate(() => window.translatorInfo);
  assert.equal(info.backend, 'wasm');
  assert.match(info.backendReason, /auto: (the WebGPU adapter is a software one|no WebGPU adapter|no WebGPU in this browser)/);
  assert.match(await page.textContent('#compute'), /^compute: wasm \(CPU\) \(asked: auto\)/);
  assert.doesNotMatch(page.url(), /backend=/);
  await page.selectOption('#backend', 'webgpu');
  await page.waitForFunction(() => window.translatorInfo?.requestedBackend === 'webgpu' && document.body.dataset.state === 'done', null, { timeout: 180_000 });
  info = await page.evaluate(() => window.translatorInfo);
  assert.match(page.url(), /[?&]backend=webgpu/);
  if (info.backend === 'webgpu') assert.match(await page.textContent('#compute'), /^compute: WebGPU/);
  assert.deepEqual(errors, []);
  await page.close();
});
