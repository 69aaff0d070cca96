#!/usr/bin/env node
// The npm package in headless Chromium against the native CLI on the same model and input:
// load time (network, then Cache API), one batch of all lines (sentences/s, target tokens/s) and
// single-line latency, for the threaded build (page with COOP/COEP; 1 and 2 threads), its
// relaxed-SIMD form (when web/dist holds it) and the single-threaded build (page without them).
// Prints a table; --json writes the figures.
//
//   node tests/bench/web_browser.mjs -m MODEL.tfm [-i LINES.txt] [--threads 1,2] [--json OUT]
//
// Needs web/dist (npm run build in web/), build/tformer, /usr/bin/chromium, web/node_modules.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serveStatic } from '../static_server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const model = opt('-m');
if (!model) {
  console.error('usage: node tests/bench/web_browser.mjs -m MODEL.tfm [-i LINES.txt] [--threads 1,2] [--json OUT]');
  process.exit(2);
}
const input = opt('-i', path.join(root, 'tests', 'fixtures', 'marian', 'input.txt'));
const threadCounts = opt('--threads', '1,2').split(',').map(Number);
const lines = readFileSync(input, 'utf8').split('\n').filter((l) => l.trim());
const cli = path.join(root, 'build', 'tformer');

// Runs in the page.
async function measure({ lines, variant, threads }) {
  const { Translator } = await import(new URL('/web/src/index.js', location.href).href);
  const load = async () => {
    const t0 = performance.now();
    const t = await Translator.create({ model: '/model.tfm', variant, threads });
    return { t, ms: performance.now() - t0 };
  };
  const first = await load();  // downloads, stores in the Cache API
  first.t.dispose();
  const { t, ms: cachedMs } = await load();
  await t.translate(lines[0]);  // warm-up
  const b0 = performance.now();
  const batch = await t.translate(lines);
  const batchMs = performance.now() - b0;
  const latencies = [];
  for (const line of lines) {
    const s0 = performance.now();
    await t.translate(line);
    latencies.push(performance.now() - s0);
  }
  latencies.sort((a, b) => a - b);
  const info = t.info;
  t.dispose();
  const sentences = batch.reduce((n, r) => n + r.sentences.length, 0);
  const tokens = batch.reduce((n, r) => n + r.tokens.length, 0);
  return {
    variant: info.variant, threads: info.threads, firstLoadMs: first.ms, cachedLoadMs: cachedMs,
    load: info.load, batchMs, sentences, tokens, medianMs: latencies[Math.floor(latencies.length / 2)],
  };
}

const { chromium } = createRequire(path.join(root, 'web', 'package.json'))('playwright-core');
const rows = [];
const relaxedBuilt = existsSync(path.join(root, 'web', 'dist', 'tformer-mtr.wasm'));
const runs = [[true, 'threaded', threadCounts], ...(relaxedBuilt ? [[true, 'relaxed', threadCounts]] : []), [false, 'single', [1]]];
for (const [isolation, variant, threadList] of runs) {
  const server = await serveStatic({ routes: { '/model.tfm': path.resolve(model), '/web/src/': path.join(root, 'web', 'src'),
    '/web/dist/': path.join(root, 'web', 'dist') }, isolated: () => isolation });
  const profile = mkdtempSync(path.join(tmpdir(), 'tformer-bench-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    for (const threads of threadList) {
      const page = await browser.newPage();
      await page.goto(server.url);
      await page.evaluate(() => caches.delete('tformer-models-v1'));
      rows.push({ where: 'chromium', ...await page.evaluate(measure, { lines, variant, threads }) });
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
for (const threads of threadCounts) {
  const json = path.join(tmpdir(), `tformer-bench-native-${process.pid}.json`);
  execFileSync(cli, ['bench', '-m', model, '-i', input, '--threads', String(threads), '--json', json], { stdio: 'ignore' });
  const n = JSON.parse(readFileSync(json, 'utf8'));
  rmSync(json);
  rows.push({ where: 'native', variant: 'native', threads, firstLoadMs: n.load_ms, cachedLoadMs: null,
    batchMs: n.seconds * 1000, sentences: n.sentences, tokens: n.target_tokens, medianMs: n.latency_median_ms });
}

const nativeOf = (threads) => rows.find((r) => r.where === 'native' && r.threads === threads);
const f = (x, d = 0) => (x === null || x === undefined ? '-' : x.toFixed(d));
console.log(`model ${model} (${(statSync(model).size / 1048576).toFixed(1)} MiB), ${lines.length} lines from ${path.relative(process.cwd(), input)}`);
console.log('where     build     threads  load ms (net / cache)  batch sent/s  batch tok/s  x native  latency ms (median)');
for (const r of rows) {
  const tps = r.tokens / (r.batchMs / 1000);
  const native = nativeOf(r.threads);
  const ratio = r.where === 'native' || !native ? '' : (tps / (native.tokens / (native.batchMs / 1000))).toFixed(2);
  console.log(`${r.where.padEnd(9)} ${r.variant.padEnd(9)} ${String(r.threads).padStart(7)}  ${f(r.firstLoadMs).padStart(9)} / ${f(r.cachedLoadMs).padStart(6)}  ` +
    `${f(r.sentences / (r.batchMs / 1000), 1).padStart(12)}  ${f(tps).padStart(11)}  ${ratio.padStart(8)}  ${f(r.medianMs, 1).padStart(19)}`);
}
if (opt('--json')) writeFileSync(opt('--json'), JSON.stringify({ model, input, rows }, null, 1));
