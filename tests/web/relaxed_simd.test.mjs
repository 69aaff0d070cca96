// The relaxed-SIMD build (tformer-mtr, wasm/RelaxedSimd.cmake) in headless Chromium, where relaxed
// SIMD validates (node 20 cannot run it, so this is its only test): the package picks it on a
// cross-origin-isolated page, and its translations equal the PyTorch reference's, as the other
// builds' do: the shipped de->en model (f16 weights, f32 kernels) and its int8 quantization on the
// regression sentences (greedy and beam 4), and the int8 and f32 fixtures' golden outputs.
// Without the relaxed build in web/dist, the same page gets the threaded build and a warning.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHROMIUM, repoRoot, webDir, fixturePath, golden, launchChromium, requireDist } from './helpers.mjs';
import { serveStatic } from '../static_server.mjs';

const RELAXED = ['tformer-mtr.mjs', 'tformer-mtr.wasm', 'tformer-mtr.worker.js'];
const regression = path.join(repoRoot, 'tests', 'models', 'regression', 'tiny.deen');
const readLines = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l.length);

let work, server, browser;

// The page's query string decides, for the page and (through the Referer) everything it loads:
// ?isolated=0 sends no COOP/COEP, ?norelaxed=1 hides the relaxed build.
const pageQuery = (req) => new URL(req.headers.referer ?? req.url, 'http://x').searchParams;

// Runs in the page: one translator, its info and the translations of `lines` per beam.
async function translateInPage({ model, variant, lines, beams }) {
  const { Translator } = await import('/web/src/index.js');
  const { detectEnvironment } = await import('/web/src/environment.js');
  const t = await Translator.create({ model, variant, threads: 2, cache: false });
  try {
    const outputs = {};
    for (const beam of beams) {
      // The plain model, as the references compute it (passthrough and the guard are on by default).
      const results = await t.translate(lines, { beam, passthrough: false, repetitionGuard: false });
      outputs[beam] = results.map((r) => ({ text: r.text, tokens: Array.from(r.tokens) }));
    }
    return { relaxedSimd: detectEnvironment().relaxedSimd, variant: t.info.variant, warnings: t.info.warnings, outputs };
  } finally {
    t.dispose();
  }
}

async function inPage(query, args) {
  const page = await browser.newPage();
  try {
    await page.goto(`${server.url}${query}`);
    return await page.evaluate(translateInPage, args);
  } finally {
    await page.close();
  }
}

before(async () => {
  requireDist();
  const missing = RELAXED.filter((f) => !existsSync(path.join(webDir, 'dist', f)));
  assert.deepEqual(missing, [], 'web/dist lacks the relaxed-SIMD build: build build-wasm-relaxed (README), then `npm run build` in web/');
  assert.ok(existsSync(CHROMIUM), `no ${CHROMIUM} (apt-get install chromium)`);
  work = mkdtempSync(path.join(tmpdir(), 'tformer-relaxed-'));
  // int8 as the regression ctest makes it (deterministic), from the shipped f16 model.
  const int8 = path.join(work, 'tiny.deen.int8.tfm');
  execFileSync(path.join(repoRoot, 'models', 'tfm'), ['quantize', path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm'), '-o', int8],
    { stdio: 'ignore' });
  server = await serveStatic({
    routes: {
      '/web/src/': path.join(webDir, 'src'),
      '/web/dist/': path.join(webDir, 'dist'),
      '/tiny.deen.f16.tfm': path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm'),
      '/tiny.deen.int8.tfm': int8,
      '/marian.tfm': fixturePath('marian'),
      '/marian-int8.tfm': fixturePath('marian-int8'),
    },
    isolated: (req) => pageQuery(req).get('isolated') !== '0',
    hide: (req, urlPath) => pageQuery(req).get('norelaxed') === '1' && urlPath.includes('tformer-mtr'),
  });
  const { chromium } = createRequire(path.join(webDir, 'package.json'))('playwright-core');
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// Relaxed SIMD's int8 products (XNNPACK's relaxed-SIMD qd8 kernels) are not rounded exactly as
// the strict kernels' are, so beam search may keep the other one of two near-tied candidates. With
// the de->en model shipped at step 17174, line 7 ("Die Preise sind im letzten Jahr stark
// gestiegen.") at int8 beam 4 ends on "Prices have risen last year.", the f16 model's best
// (-0.520), which the strict int8 reference prunes on the way to "Prices have increased
// significantly last year." (-0.529). There, and only there, either is accepted.
const NEAR_TIES = { 'int8.beam4': { 6: path.join(regression, 'expected.f16.beam4.txt') } };

function assertOutputs(got, expectedFile, key) {
  const expected = readLines(expectedFile);
  const ties = NEAR_TIES[key] || {};
  assert.equal(got.length, expected.length);
  got.forEach((text, i) => {
    if (i in ties && text !== expected[i]) assert.equal(text, readLines(ties[i])[i], `line ${i + 1} (a documented near tie)`);
    else assert.equal(text, expected[i], `line ${i + 1}`);
  });
}

for (const weights of ['f16', 'int8']) {
  test(`relaxed SIMD in Chromium: the shipped de->en model (${weights}) gives the PyTorch reference's translations`,
    { timeout: 300_000 }, async () => {
      const lines = readLines(path.join(regression, 'input.txt'));
      // An expected file the regression tests leave out (their README says why) is skipped here too.
      const beam4 = path.join(regression, `expected.${weights}.beam4.txt`);
      const hasBeam4 = existsSync(beam4);
      const r = await inPage('', { model: `/tiny.deen.${weights}.tfm`, variant: 'auto', lines, beams: hasBeam4 ? [1, 4] : [1] });
      assert.equal(r.relaxedSimd, true, 'Chromium validates relaxed SIMD');
      assert.equal(r.variant, 'relaxed', `auto on an isolated page picks the relaxed build (warnings: ${r.warnings})`);
      assertOutputs(r.outputs[1].map((o) => o.text), path.join(regression, `expected.${weights}.greedy.txt`), `${weights}.greedy`);
      if (hasBeam4) assertOutputs(r.outputs[4].map((o) => o.text), beam4, `${weights}.beam4`);
    });
}

test('relaxed SIMD in Chromium: the f32 and int8 fixtures give their golden token ids', { timeout: 300_000 }, async () => {
  for (const name of ['marian', 'marian-int8']) {
    const g = golden(name);
    const r = await inPage('', { model: `/${name}.tfm`, variant: 'relaxed', lines: g.sentences.map((s) => s.text), beams: [1] });
    assert.equal(r.variant, 'relaxed');
    assert.deepEqual(r.outputs[1].map((o) => o.tokens), g.sentences.map((s) => s.greedy.tokens), name);
  }
});

test('relaxed SIMD in Chromium: without the relaxed build on the server, the threaded build runs (with a warning)',
  { timeout: 300_000 }, async () => {
    const lines = readLines(path.join(regression, 'input.txt')).slice(0, 2);
    const r = await inPage('?norelaxed=1', { model: '/tiny.deen.int8.tfm', variant: 'auto', lines, beams: [1] });
    assert.equal(r.variant, 'threaded');
    assert.match(r.warnings.join(' '), /the relaxed-SIMD build could not be loaded .*using the threaded build/);
    assert.deepEqual(r.outputs[1].map((o) => o.text), readLines(path.join(regression, 'expected.int8.greedy.txt')).slice(0, 2));
  });

test('relaxed SIMD in Chromium: a page without COOP/COEP gets the single-threaded build', { timeout: 300_000 }, async () => {
  const lines = readLines(path.join(regression, 'input.txt')).slice(0, 2);
  const r = await inPage('?isolated=0', { model: '/tiny.deen.int8.tfm', variant: 'auto', lines, beams: [1] });
  assert.equal(r.relaxedSimd, true);
  assert.equal(r.variant, 'single');
  assert.deepEqual(r.outputs[1].map((o) => o.text), readLines(path.join(regression, 'expected.int8.greedy.txt')).slice(0, 2));
});
