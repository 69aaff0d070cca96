#!/usr/bin/env node
// The Firefox "tiny" shape (tests/bench/firefox_tiny.py: SSRU decoder, 32k vocabulary, intgemm8 with
// its lexical shortlist) in one headless Chromium page, the way users run it: tformer's npm package
// (its relaxed-SIMD build by default, one thread) against Bergamot's wasm (Firefox's engine,
// `gemm-precision: int8shiftAlphaAll`, the same shortlist), on the same Marian files. Two workloads:
// one sentence per request (tformer: one translate() per line, awaited; Bergamot: one
// service.translate per line in its Worker) and batched (all lines in one request on both sides).
// Rounds are interleaved (tformer, Bergamot, tformer, Bergamot...) after one untimed warm-up pass of
// each, so that a machine's changing load hits both; ratios are of the medians of the same run.
//
//   node tests/bench/firefox_browser.mjs --dir D [--input LINES] [--lines 100] [--rounds 3]
//        [--variant relaxed|threaded|single] [--threads 1] [--json OUT]
//
// D is firefox_tiny.py's firefox-tiny-ssru folder (D/marian: model.intgemm.alphas.bin, vocab.spm;
// D/shortlist/lex.50.50.deen.s2t.bin). Needs web/dist, web/node_modules (playwright-core,
// @browsermt/bergamot-translator) and /usr/bin/chromium.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { serveStatic } from '../static_server.mjs';
import { PACKAGE, bergamotConfig } from '../marian/bergamot.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: o } = parseArgs({ options: {
  dir: { type: 'string' }, input: { type: 'string' }, lines: { type: 'string', default: '100' },
  rounds: { type: 'string', default: '3' }, variant: { type: 'string', default: 'relaxed' },
  threads: { type: 'string', default: '1' }, json: { type: 'string' },
} });
if (!o.dir) {
  console.error('usage: node tests/bench/firefox_browser.mjs --dir D [--input LINES] [--lines 100] [--rounds 3] [--json OUT]');
  process.exit(2);
}
const input = o.input ?? path.join(root, '..', 'shared', 'data', 'deen', 'dev', 'flores-dev.de');
const lines = readFileSync(input, 'utf8').split('\n').filter((l) => l.trim()).slice(0, Number(o.lines));

// Runs in the page: both engines loaded, then the interleaved rounds.
async function measure({ lines, rounds, variant, threads, config }) {
  const PLAIN = { passthrough: false, repetitionGuard: false };
  const { Translator } = await import('/web/src/index.js');
  const tformer = await Translator.create({
    model: { files: ['/model/model.intgemm.alphas.bin', '/model/vocab.spm', '/lex/lex.50.50.deen.s2t.bin'] }, variant, threads });
  const worker = new Worker('/harness/bergamot-worker.cjs');
  let serial = 0;
  const pending = new Map();
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    pending.delete(data.id);
    if (data.error !== undefined) p.reject(new Error(data.error));
    else p.resolve(data.result);
  };
  const call = (msg) => new Promise((resolve, reject) => {
    const id = ++serial;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...msg });
  });
  const bytes = async (url) => (await fetch(url)).arrayBuffer();
  await call({ op: 'init', glue: '/bergamot/bergamot-translator-worker.js', wasm: '/bergamot/bergamot-translator-worker.wasm' });
  const vocab = await bytes('/model/vocab.spm');
  await call({ op: 'load', model: await bytes('/model/model.intgemm.alphas.bin'), vocabs: [vocab, vocab], config,
    shortlist: await bytes('/lex/lex.50.50.deen.s2t.bin') });

  const runs = {
    'tformer one per request': async () => {
      const out = [];
      for (const line of lines) out.push((await tformer.translate(line, PLAIN)).text);
      return out;
    },
    'Bergamot one per request': () => call({ op: 'translate', texts: lines }),
    'tformer batched': async () => (await tformer.translate(lines, PLAIN)).map((r) => r.text),
    'Bergamot batched': () => call({ op: 'translateBatch', texts: lines }),
  };
  const times = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
  const chars = {};
  for (const run of Object.values(runs)) await run();  // warm-up: Chromium tiers up hot functions
  for (let r = 0; r < rounds; r++) {
    for (const [name, run] of Object.entries(runs)) {
      const t0 = performance.now();
      const out = await run();
      times[name].push(performance.now() - t0);
      chars[name] = out.reduce((n, t) => n + t.length, 0);
    }
  }
  const info = tformer.info;
  tformer.dispose();
  worker.terminate();
  return { times, chars, variant: info.variant, threads: info.threads, kernels: info.kernels, userAgent: navigator.userAgent };
}

const { chromium } = createRequire(path.join(root, 'web', 'package.json'))('playwright-core');
const served = await serveStatic({ routes: {
  '/web/': path.join(root, 'web'),
  '/harness/': path.join(root, 'tests', 'marian'),
  '/bergamot/': path.join(PACKAGE, 'worker'),
  '/model/': path.join(o.dir, 'marian'),
  '/lex/': path.join(o.dir, 'shortlist'),
} });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.error(`page: ${m.text()}`); });
  await page.goto(served.url);
  const r = await page.evaluate(measure, { lines, rounds: Number(o.rounds), variant: o.variant, threads: Number(o.threads),
    config: bergamotConfig({ precision: 'int8shiftAlphaAll' }) });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = (name) => lines.length / (median(r.times[name]) / 1000);
  console.log(`Chromium ${browser.version()}; tformer ${r.variant} build, ${r.threads} thread(s), ${r.kernels}; ${lines.length} lines, ` +
    `${o.rounds} interleaved rounds (median)`);
  const rows = [];
  for (const mode of ['one per request', 'batched']) {
    const ours = rate(`tformer ${mode}`), theirs = rate(`Bergamot ${mode}`);
    rows.push({ mode, tformer_sent_s: ours, bergamot_sent_s: theirs, ratio: ours / theirs,
      tformer_ms: r.times[`tformer ${mode}`], bergamot_ms: r.times[`Bergamot ${mode}`],
      tformer_chars: r.chars[`tformer ${mode}`], bergamot_chars: r.chars[`Bergamot ${mode}`] });
    console.log(`${mode.padEnd(16)} tformer ${ours.toFixed(1)} sent/s  Bergamot ${theirs.toFixed(1)} sent/s  ` +
      `x ${(ours / theirs).toFixed(2)}  (ms per round: ${r.times[`tformer ${mode}`].map(Math.round).join(' ')} | ` +
      `${r.times[`Bergamot ${mode}`].map(Math.round).join(' ')}; output chars ${r.chars[`tformer ${mode}`]} | ${r.chars[`Bergamot ${mode}`]})`);
  }
  if (o.json) writeFileSync(o.json, JSON.stringify({ browser: browser.version(), lines: lines.length, ...r, rows }, null, 2));
} finally {
  await browser.close();
  served.close();
}
