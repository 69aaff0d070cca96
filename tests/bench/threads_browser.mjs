#!/usr/bin/env node
// Thread counts against the machine's cores, in real browsers: one batch of lines through the npm
// package's threaded build with 1, 2, 4 and 8 threads, rounds interleaved (1, 2, 4, 8, 1, 2, ...)
// so that the machine's changing load hits every count alike; medians, and each count's ratio to 2
// threads. A pool larger than the cores (8 threads on 2 cores) must cost little more than the
// cores' own count, never the 15-140x that spin-waiting threads cost a descheduled one.
//
//   node tests/bench/threads_browser.mjs [--engines chromium,firefox] [--threads 1,2,4,8] [--rounds 5]
//        [-m models/tiny.deen/model.tfm] [-i flores-dev.de] [--lines 20] [--variant threaded] [--busy N]
//        [--packages NAME=DIR,NAME=DIR] [--json OUT]
//
// The browsers report navigator.hardwareConcurrency as the machine's cores, and the package and the
// threaded build size their pools from it (at most cores + 1 threads); to measure more threads
// than cores, the page and the engine's Worker are given a hardwareConcurrency of the largest
// count (--real-cores: not; the package then allows at most cores + 1 threads). In Firefox ESR 153
// a page given 4 or 8 that way lost its tab ("Target closed") or its pool's Workers never started;
// there --real-cores measures what a page can get. --busy N: N processes spinning beside the
// browser all along (a machine under load).
// webkit is accepted too (WebKitGTK has SharedArrayBuffer only with JSC_useSharedArrayBuffer=1,
// as Safari has it; this script sets it). --packages: package folders (each with src/ and dist/)
// measured side by side in the same rounds, e.g. the package before and after a change of the
// engine (default: this=web). Needs web/dist and the browsers of tests/web/helpers.mjs.
import { fork } from 'node:child_process';
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
  engines: { type: 'string', default: 'chromium,firefox' }, threads: { type: 'string', default: '1,2,4,8' },
  rounds: { type: 'string', default: '5' }, model: { type: 'string', short: 'm', default: path.join(root, 'models', 'tiny.deen', 'model.tfm') },
  input: { type: 'string', short: 'i', default: path.join(root, '..', 'shared', 'data', 'deen', 'dev', 'flores-dev.de') },
  lines: { type: 'string', default: '20' }, variant: { type: 'string', default: 'threaded' }, busy: { type: 'string', default: '0' },
  packages: { type: 'string', default: `this=${path.join(root, 'web')}` }, json: { type: 'string' },
  'real-cores': { type: 'boolean', default: false },
} });
if (process.argv.includes('--spin')) for (;;);  // a --busy child

const counts = o.threads.split(',').map(Number);
const most = Math.max(...counts);
const lines = readFileSync(o.input, 'utf8').split('\n').filter((l) => l.trim()).slice(0, Number(o.lines));
if (o.engines.split(',').includes('webkit')) process.env.JSC_useSharedArrayBuffer = '1';

// In the page, before the package: the page and every Worker it starts report `cores`.
function pretendCores(cores) {
  Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => cores, configurable: true });
  const patch = URL.createObjectURL(new Blob([`Object.defineProperty(WorkerNavigator.prototype, 'hardwareConcurrency', ` +
    `{ get: () => ${cores}, configurable: true });`], { type: 'text/javascript' }));
  const Original = Worker;
  window.Worker = class extends Original {
    constructor(url, options) {
      const target = new URL(url, location.href).href;
      // Static imports run in order: the patch before the engine's Worker script.
      const wrapper = URL.createObjectURL(new Blob([`import '${patch}';\nimport '${target}';\n`], { type: 'text/javascript' }));
      super(wrapper, { ...options, type: 'module' });
    }
  };
}

// In the page: the interleaved rounds, each count's translator made before its timed request and
// disposed after it, so that one pool of workers lives at a time (Firefox stops starting the
// Workers of a page that keeps several pools of 8 alive).
async function measure({ lines, counts, rounds, variant, packages }) {
  const PLAIN = { passthrough: false, repetitionGuard: false };
  const Translators = {};
  for (const name of packages) Translators[name] = (await import(`/pkg/${name}/src/index.js`)).Translator;
  const keys = packages.flatMap((name) => counts.map((n) => [`${name} ${n}`, name, n]));
  const times = Object.fromEntries(keys.map(([k]) => [k, []]));
  const info = {};
  let reference = null;
  for (let r = -1; r < rounds; r++) {  // round -1: warm-up, and every count must give the same translation
    for (const [k, name, n] of keys) {
      const t = await Translators[name].create({ model: '/model.tfm', variant, threads: n, cache: false });
      try {
        await t.translate(lines[0], PLAIN);  // the pool started, the code tiered up
        const t0 = performance.now();
        const text = (await t.translate(lines, PLAIN)).map((x) => x.text).join('\n');
        const ms = performance.now() - t0;
        reference ??= text;
        if (text !== reference) throw new Error(`${k} threads translate otherwise than ${keys[0][0]}`);
        if (r >= 0) times[k].push(ms);
        info[k] = { variant: t.info.variant, threads: t.info.threads };
      } finally {
        t.dispose();
      }
    }
  }
  return { times, info, userAgent: navigator.userAgent };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const busy = Array.from({ length: Number(o.busy) }, () => fork(fileURLToPath(import.meta.url), ['--spin'], { stdio: 'ignore' }));
const packages = Object.fromEntries(o.packages.split(',').map((p) => p.split('=')));
const server = await serveStatic({ routes: { '/model.tfm': path.resolve(o.model),
  ...Object.fromEntries(Object.entries(packages).map(([name, dir]) => [`/pkg/${name}/`, path.resolve(dir)])) } });
const cpu = cpus()[0]?.model ?? '?';
let commit = '?';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { /* not a clone */ }
console.log(`${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs (${cpu}), load ${loadavg()[0].toFixed(2)}, ` +
  `commit ${commit}; ${path.relative(root, path.resolve(o.model))}, ${lines.length} lines in one batch, ${o.variant} build, ` +
  `${o.rounds} interleaved rounds (median); ${busy.length} busy processes beside`);
const report = [];
try {
  for (const kind of o.engines.split(',')) {
    const browser = await launchBrowser(kind);
    try {
      const page = await browser.newPage({ fresh: false });
      await page.goto(server.url);
      if (!o['real-cores']) await page.evaluate(pretendCores, most);
      const r = await page.evaluate(measure, { lines, counts, rounds: Number(o.rounds), variant: o.variant, packages: Object.keys(packages) });
      console.log(`${ENGINES[kind].label} ${browser.version}`);
      for (const name of Object.keys(packages)) {
        const base = median(r.times[`${name} 2`] ?? r.times[`${name} ${counts[0]}`]);
        for (const n of counts) {
          const k = `${name} ${n}`;
          const m = median(r.times[k]);
          console.log(`  ${name.padEnd(8)} ${String(n).padStart(2)} threads (${r.info[k].variant}, ${r.info[k].threads})  ${m.toFixed(0).padStart(7)} ms  ` +
            `x ${(m / base).toFixed(2)} of 2 threads   (rounds: ${r.times[k].map(Math.round).join(' ')})`);
        }
      }
      report.push({ engine: kind, version: browser.version, ...r });
    } finally {
      await browser.close();
    }
  }
} finally {
  server.close();
  for (const b of busy) b.kill();
}
if (o.json) writeFileSync(o.json, JSON.stringify({ cpu, cpus: cpus().length, commit, lines: lines.length, report }, null, 1));
