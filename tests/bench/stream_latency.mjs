#!/usr/bin/env node
// translateStream() against translate() on one long text, through the npm package in Node (its
// Worker, the threaded wasm build) and in headless Chromium (a cross-origin isolated page, the
// threaded build): how long until the first sentence arrives, and until all have, against the
// time translate() takes for the same text. What a streaming reader waits for.
//
//   node tests/bench/stream_latency.mjs [--model models/tiny.deen/model.int8.tfm]
//        [--input ../shared/data/deen/test/flores-devtest.de] [--sentences 100] [--threads 1,2]
//        [--runs 5] [--where node,chromium]
//
// The text: --sentences consecutive test-set sentences joined by spaces (one paragraph). For each
// place and thread count, each way runs --runs times after a warm-up, alternating; the medians are
// printed: translate()'s time, the stream's time to its first sentence, to half of its sentences
// and to its last, the first as a share of the stream's total, and the stream's total against
// translate()'s. Also checked: the stream's sentences are
// translate()'s. Needs web/dist (npm run build in web/); Chromium also /usr/bin/chromium and
// web/node_modules (playwright-core).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { serveStatic } from '../static_server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: a } = parseArgs({ options: {
  model: { type: 'string', default: path.join(repo, 'models', 'tiny.deen', 'model.int8.tfm') },
  input: { type: 'string', default: path.join(repo, '..', 'shared', 'data', 'deen', 'test', 'flores-devtest.de') },
  sentences: { type: 'string', default: '100' },
  threads: { type: 'string', default: '1,2' },
  runs: { type: 'string', default: '5' },
  where: { type: 'string', default: 'node,chromium' },
} });
const positive = (name) => {
  const n = Number(a[name]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer (got ${a[name]})`);
    process.exit(2);
  }
  return n;
};
const count = positive('sentences'), runs = positive('runs');
const threadCounts = a.threads.split(',').map((n) => Number(n));
if (!threadCounts.every((n) => Number.isInteger(n) && n >= 1)) {
  console.error(`--threads must be positive integers separated by commas (got ${a.threads})`);
  process.exit(2);
}
const places = a.where.split(',');
for (const [what, file] of [['--model', a.model], ['--input', a.input], ['web/dist (npm run build in web/)', path.join(repo, 'web', 'dist', 'tformer-mt.wasm')]]) {
  if (!existsSync(file)) {
    console.error(`stream_latency: ${what}: no such file: ${file}`);
    process.exit(2);
  }
}
const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
if (lines.length < count) {
  console.error(`stream_latency: ${a.input} has ${lines.length} sentences, ${count} needed`);
  process.exit(2);
}
const text = lines.slice(0, count).join(' ');

// Runs where the package runs (Node here, or the page): the timings of each run, and whether the
// stream's sentences were translate()'s.
async function measure({ src, model, text, count, threads, runs }) {
  const { Translator } = await import(src);
  const t = await Translator.create({ model, variant: 'threaded', threads, backend: 'wasm' });
  await t.translate(text.slice(0, 300));  // warm-up
  const rows = [];
  let same = true;
  // CPU time of the whole process, the engine's threads included (Node only): the engine's work,
  // whatever else the machine runs.
  const cpu = () => {
    const c = globalThis.process?.cpuUsage?.();
    return c ? (c.user + c.system) / 1000 : null;
  };
  for (let r = 0; r < runs; r++) {
    const whole = async () => {
      const t0 = performance.now(), c0 = cpu();
      const result = await t.translate(text);
      return { ms: performance.now() - t0, cpuMs: c0 === null ? null : cpu() - c0, result };
    };
    const streamed = async () => {
      const t0 = performance.now(), c0 = cpu();
      let firstMs = null, halfMs = null;
      const items = [];
      for await (const item of t.translateStream(text)) {
        firstMs ??= performance.now() - t0;
        items.push(item);
        if (items.length === Math.ceil(count / 2)) halfMs = performance.now() - t0;
      }
      return { firstMs, halfMs, ms: performance.now() - t0, cpuMs: c0 === null ? null : cpu() - c0, items };
    };
    // Alternate the order, so that neither way always runs on a warmer machine.
    let w, s;
    if (r % 2) { s = await streamed(); w = await whole(); } else { w = await whole(); s = await streamed(); }
    same &&= s.items.length === w.result.sentences.length && s.items.every((x, i) => x.text === w.result.sentences[i].text);
    rows.push({ translateMs: w.ms, firstMs: s.firstMs, halfMs: s.halfMs, streamMs: s.ms, translateCpuMs: w.cpuMs, streamCpuMs: s.cpuMs, sentences: s.items.length,
      tokens: w.result.tokens.length });
  }
  t.dispose();
  return { rows, same };
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const results = [];
const load0 = loadavg()[0];
if (places.includes('node')) {
  for (const threads of threadCounts) {
    results.push({ where: 'node', threads, ...await measure({ src: path.join(repo, 'web', 'src', 'index.js'), model: path.resolve(a.model), text, count,
      threads, runs }) });
  }
}
if (places.includes('chromium')) {
  const { chromium } = createRequire(path.join(repo, 'web', 'package.json'))('playwright-core');
  const server = await serveStatic({ routes: { '/model.tfm': path.resolve(a.model), '/web/src/': path.join(repo, 'web', 'src'),
    '/web/dist/': path.join(repo, 'web', 'dist') } });
  const profile = mkdtempSync(path.join(tmpdir(), 'tformer-stream-bench-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    for (const threads of threadCounts) {
      results.push({ where: 'chromium', threads, ...await page.evaluate(measure, { src: new URL('/web/src/index.js', server.url).href,
        model: '/model.tfm', text, count, threads, runs }) });
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
const load1 = loadavg()[0];

console.log(`CPU: ${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores); load average ${load0.toFixed(2)} before, ${load1.toFixed(2)} after`);
console.log(`model ${path.relative(process.cwd(), a.model)}, ${count} sentences of ${path.relative(process.cwd(), a.input)} as one text ` +
  `(${text.length} characters); threaded wasm; medians of ${runs} runs`);
console.log('threads  where     translate() ms  stream: first ms  half ms  all ms  first/all  all/translate()  CPU time: stream/translate()  same sentences');
// The ratios are medians of each run's own (a run's two ways ran back to back, under the same load).
for (const { where, threads, rows, same } of results) {
  const m = (k) => median(rows.map((r) => r[k]));
  const first = m('firstMs'), half = m('halfMs'), all = m('streamMs'), whole = m('translateMs');
  console.log(`${String(threads).padStart(7)}  ${where.padEnd(9)} ${whole.toFixed(0).padStart(14)}  ${first.toFixed(0).padStart(16)}  ` +
    `${half.toFixed(0).padStart(7)}  ${all.toFixed(0).padStart(6)}  ` +
    `${(100 * median(rows.map((r) => r.firstMs / r.streamMs))).toFixed(1).padStart(8)}%  ` +
    `${median(rows.map((r) => r.streamMs / r.translateMs)).toFixed(3).padStart(15)}  ` +
    `${(rows[0].streamCpuMs === null ? '-' : median(rows.map((r) => r.streamCpuMs / r.translateCpuMs)).toFixed(3)).padStart(27)}  ${same ? 'yes' : 'NO'}`);
  if (!same) process.exitCode = 1;
}
