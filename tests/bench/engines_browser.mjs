#!/usr/bin/env node
// The same request in each browser engine: one batch of lines through the npm package on a
// cross-origin-isolated page, with the single-threaded build and with the build the package picks
// there by default (relaxed SIMD + threads in Chromium and Firefox; single-threaded in WebKitGTK,
// which gives no SharedArrayBuffer). The three browsers are open at once and the rounds are
// interleaved (Chromium single, Chromium default, Firefox single, ..., then again) so that the
// machine's changing load hits every engine alike; medians, and each one's ratio to Chromium's
// time with the same build choice (> 1: slower than Chromium).
//
//   node tests/bench/engines_browser.mjs [--engines chromium,firefox,webkit] [--rounds 5]
//        [-m models/tiny.deen/model.tfm] [-i flores-dev.de] [--lines 20] [--json OUT]
//
// Needs web/dist and the browsers of tests/web/helpers.mjs (launchBrowser).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { ENGINES, launchBrowser } from '../web/helpers.mjs';
import { serveStatic } from '../static_server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: o } = parseArgs({ options: {
  engines: { type: 'string', default: 'chromium,firefox,webkit' }, rounds: { type: 'string', default: '5' },
  model: { type: 'string', short: 'm', default: path.join(root, 'models', 'tiny.deen', 'model.tfm') },
  input: { type: 'string', short: 'i', default: path.join(root, '..', 'shared', 'data', 'deen', 'dev', 'flores-dev.de') },
  lines: { type: 'string', default: '20' }, json: { type: 'string' },
} });
const lines = readFileSync(o.input, 'utf8').split('\n').filter((l) => l.trim()).slice(0, Number(o.lines));
const engines = o.engines.split(',');
const CHOICES = ['single', 'auto'];

// In the page: the two translators, warmed up (every engine tiers up hot code on first runs).
async function prepare({ lines }) {
  const PLAIN = { passthrough: false, repetitionGuard: false };
  const { Translator } = await import('/web/src/index.js');
  window.benchTranslators = {};
  for (const variant of ['single', 'auto']) {
    const t = await Translator.create({ model: '/model.tfm', variant, cache: false });
    window.benchTranslators[variant] = t;
    await t.translate(lines, PLAIN);
    await t.translate(lines, PLAIN);
  }
  const info = (t) => ({ variant: t.info.variant, threads: t.info.threads, backend: t.info.backend });
  return { single: info(window.benchTranslators.single), auto: info(window.benchTranslators.auto) };
}

// In the page: one timed request; the milliseconds and what it gave.
async function once({ lines, variant }) {
  const t0 = performance.now();
  const results = await window.benchTranslators[variant].translate(lines, { passthrough: false, repetitionGuard: false });
  return { ms: performance.now() - t0, text: results.map((r) => r.text).join('\n') };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const server = await serveStatic({ routes: { '/web/': path.join(root, 'web'), '/model.tfm': path.resolve(o.model) } });
let commit = '?';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { /* not a clone */ }
const open = {};
try {
  for (const kind of engines) {
    const browser = await launchBrowser(kind);
    const page = await browser.newPage();
    await page.goto(server.url);
    open[kind] = { browser, page, info: await page.evaluate(prepare, { lines }), times: { single: [], auto: [] }, texts: new Set() };
  }
  for (let r = 0; r < Number(o.rounds); r++) {
    for (const kind of engines) {
      for (const variant of CHOICES) {
        const { ms, text } = await open[kind].page.evaluate(once, { lines, variant });
        open[kind].times[variant].push(ms);
        open[kind].texts.add(text);
      }
    }
  }
  console.log(`${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0].toFixed(2)}, ` +
    `commit ${commit}; ${path.relative(root, path.resolve(o.model))}, ${lines.length} lines from ${path.basename(o.input)} in one request, ` +
    `${o.rounds} interleaved rounds (median), cross-origin-isolated page`);
  console.log('engine                 build (threads)        single ms  x Chromium   default build (threads)   default ms  x Chromium');
  const base = open.chromium && { single: median(open.chromium.times.single), auto: median(open.chromium.times.auto) };
  const rows = [];
  for (const kind of engines) {
    const e = open[kind];
    const single = median(e.times.single), auto = median(e.times.auto);
    const ratio = (m, v) => (base ? (m / base[v]).toFixed(2) : '-');
    console.log(`${`${ENGINES[kind].label} ${e.browser.version}`.padEnd(22)} ${`${e.info.single.variant} (${e.info.single.threads})`.padEnd(20)} ` +
      `${single.toFixed(0).padStart(11)}  ${ratio(single, 'single').padStart(10)}   ${`${e.info.auto.variant} (${e.info.auto.threads})`.padEnd(24)} ` +
      `${auto.toFixed(0).padStart(10)}  ${ratio(auto, 'auto').padStart(10)}   (${e.texts.size === 1 ? 'one output' : `${e.texts.size} different outputs`})`);
    rows.push({ engine: kind, version: e.browser.version, info: e.info, times: e.times, single, auto });
  }
  const outputs = new Set(engines.flatMap((k) => [...open[k].texts]));
  console.log(outputs.size === 1 ? 'every engine and build gave the same translation' : `${outputs.size} different translations across engines and builds`);
  if (o.json) writeFileSync(o.json, JSON.stringify({ commit, cpu: cpus()[0]?.model, lines: lines.length, rows }, null, 1));
} finally {
  for (const { browser } of Object.values(open)) await browser.close();
  server.close();
}
