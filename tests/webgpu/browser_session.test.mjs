// End to end in headless Chromium (SwiftShader WebGPU): tests/webgpu/session.html loads the wasm
// modules from build-wasm/ (single-threaded, and threaded on a cross-origin-isolated page), runs
// translations with the WebGPU backend answering the session's encoder and projection requests,
// and compares them with the same module's wasm translation:
// - fixture models: the PyTorch reference's greedy texts, and wasm's tokens, token for token;
// - the larger random model (16k vocabulary): wasm's tokens, token for token;
// - a module Worker (where the npm package translates) gives the same;
// - a device lost mid-translation still gives the wasm translation.
// Kept small: SwiftShader is a CPU. Skipped without Chromium, playwright-core or the wasm build.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { browserSkip, serveRepository, launchChromium } from './chromium.mjs';
import { FIXTURES, fixtureFile, lines, largeModel, germanSentences, repoRoot } from './models.mjs';
import { options } from '../wasm/load_module.mjs';

const wasmBuilt = existsSync(path.join(repoRoot, 'build-wasm', 'wasm', 'tformer-mt.mjs'));
const skip = browserSkip || (!wasmBuilt && 'no wasm build in build-wasm/wasm');
let server;
let browser;
let page;

before(async () => {
  if (skip) return;
  server = await serveRepository({ isolated: true });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('console', (m) => m.type() === 'error' && console.log(`# page: ${m.text()}`));
  await page.goto(`${server.url}/tests/webgpu/session.html`);
  await page.waitForFunction(() => document.title.endsWith('(ready)'));
});

after(async () => {
  await browser?.close();
  server?.close();
});

const url = (file) => '/' + path.relative(repoRoot, file);

async function check(t, request) {
  const r = await page.evaluate((req) => window.check(req), request);
  assert.equal(r.error, undefined, r.error);
  if (r.adapter === null) {
    t.skip(`no WebGPU adapter in Chromium: ${r.reason}`);
    return null;
  }
  return r;
}

function tokens(summary) {
  return summary.map((p) => p.sentences.map((s) => s.tokens));
}

function report(t, where, r) {
  const c = r.counters;
  const sentences = r.webgpu.reduce((n, p) => n + p.sentences.length, 0);
  t.diagnostic(`${where} on ${r.adapter}: ${sentences} sentences, ${c.encodes} encodes + ${c.projections} steps = ` +
    `${c.submissions} submissions, ${c.readbacks} readbacks; webgpu ${r.ms.webgpu.toFixed(0)} ms, wasm ${r.ms.wasm.toFixed(0)} ms`);
}

function assertAgree(r) {
  assert.deepEqual(tokens(r.webgpu), tokens(r.wasm), 'WebGPU and wasm tokens');
  assert.deepEqual(r.loop, r.wasm, 'the session loop on wasm is translate() exactly');
  assert.ok(r.usable, `the backend stayed usable (failure: ${r.failure})`);
  assert.equal(r.uncapturedErrors, 0);
  assert.equal(r.counters.submissions, r.counters.encodes + r.counters.projections);
  assert.equal(r.counters.readbacks, r.counters.submissions);
}

for (const [variant, threads] of [['st', 1], ['mt', 2]]) {
  test(`${variant} module in a page: fixtures give the reference's greedy texts on WebGPU`, { skip }, async (t) => {
    for (const name of FIXTURES) {
      const r = await check(t, { variant, threads, model: url(fixtureFile(name, 'model.tfm')),
        texts: lines(fixtureFile(name, 'input.txt')), options: options() });
      if (!r) return;
      if (variant === 'mt') assert.ok(r.crossOriginIsolated && r.threadsAvailable, 'the page is cross-origin isolated');
      assert.deepEqual(r.webgpu.map((p) => p.text), lines(fixtureFile(name, 'expected.greedy.txt')), name);
      assertAgree(r);
      report(t, `${variant} ${name}`, r);
    }
  });
}

test('larger random model in a page (mt): WebGPU and wasm agree token for token', { skip, timeout: 1_200_000 }, async (t) => {
  const model = largeModel();
  if (!model.file) return t.skip(model.reason);
  const r = await check(t, { variant: 'mt', threads: 2, model: url(model.file), texts: germanSentences(3, { maxWords: 10 }),
    options: options({ maxLength: 12 }) });
  if (!r) return;
  assertAgree(r);
  report(t, 'mt tiny-random', r);
});

test('st module in a Worker; and a device lost mid-translation falls back to wasm', { skip }, async (t) => {
  const texts = lines(fixtureFile('marian', 'input.txt'));
  const model = url(fixtureFile('marian', 'model.tfm'));
  const inWorker = await check(t, { where: 'worker', variant: 'st', model, texts, options: options() });
  if (!inWorker) return;
  assert.deepEqual(inWorker.webgpu.map((p) => p.text), lines(fixtureFile('marian', 'expected.greedy.txt')));
  assertAgree(inWorker);
  report(t, 'worker st marian', inWorker);

  const lost = await check(t, { variant: 'st', model, texts, options: options({ beam: 4, nbest: 2 }), fault: 'lose-device' });
  assert.deepEqual(tokens(lost.webgpu), tokens(lost.wasm), 'the translation is the wasm one');
  assert.deepEqual(lost.webgpu.map((p) => p.text), lost.wasm.map((p) => p.text));
  assert.equal(lost.usable, false);
  assert.equal(lost.fallbacks.length, 1);
  t.diagnostic(`device lost after ${lost.counters.projections} GPU steps: ${lost.fallbacks[0]}`);
});
