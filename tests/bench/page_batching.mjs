#!/usr/bin/env node
// Batching across a page: the paragraphs of a page translated in one request (translate() with an
// array: the engine batches their sentences together) against one request per paragraph, through
// the npm package in Node (its Worker, the threaded wasm build).
//
//   node tests/bench/page_batching.mjs [--model models/tiny.deen/model.int8.tfm]
//        [--input ../shared/data/deen/test/flores-devtest.de] [--paragraphs 200]
//        [--sentences 1] [--threads 2] [--runs 3] [--html]
//
// The page: --paragraphs paragraphs of --sentences consecutive test-set sentences each. Each way
// runs --runs times after a warm-up; the best run counts. Printed: the CPU, its load, each way's
// time, target tokens/s and sentences/s, the ratio per-paragraph / batched, and whether both ways
// gave the same tokens (batching changes no result: the engine's rule). --html wraps each
// paragraph in <p> with an <em> and a link and translates with html: true, as the page demo does.
// Needs web/dist (npm run build in web/).
import { readFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const { values: a } = parseArgs({ options: {
  model: { type: 'string', default: join(repo, 'models', 'tiny.deen', 'model.int8.tfm') },
  input: { type: 'string', default: join(repo, '..', 'shared', 'data', 'deen', 'test', 'flores-devtest.de') },
  paragraphs: { type: 'string', default: '200' },
  sentences: { type: 'string', default: '1' },
  threads: { type: 'string', default: '2' },
  runs: { type: 'string', default: '3' },
  html: { type: 'boolean', default: false },
} });

function positive(name) {
  const n = Number(a[name]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer (got ${a[name]})`);
    process.exit(2);
  }
  return n;
}
const paragraphs = positive('paragraphs'), perParagraph = positive('sentences'), threads = positive('threads'), runs = positive('runs');
for (const [what, file] of [['--model', a.model], ['--input', a.input], ['web/dist (npm run build in web/)', join(repo, 'web', 'dist', 'tformer-mt.wasm')]]) {
  if (!existsSync(file)) {
    console.error(`page_batching: ${what}: no such file: ${file}`);
    process.exit(2);
  }
}

const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
if (lines.length < paragraphs * perParagraph) {
  console.error(`page_batching: ${a.input} has ${lines.length} sentences, ${paragraphs * perParagraph} needed`);
  process.exit(2);
}
const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const page = Array.from({ length: paragraphs }, (_, i) => {
  const text = lines.slice(i * perParagraph, (i + 1) * perParagraph).join(' ');
  if (!a.html) return text;
  // The first word emphasised, the last linked: what the page demo's paragraphs look like.
  const words = escape(text).split(' ');
  const last = words.length - 1;
  return `<p><em>${words[0]}</em> ${words.slice(1, last).join(' ')} <a href="#p${i}">${words[last]}</a></p>`;
});

const { Translator } = await import(join(repo, 'web', 'src', 'index.js'));
const translator = await Translator.create({ model: resolve(a.model), variant: 'threaded', threads, backend: 'wasm' });
const options = a.html ? { html: true } : {};
await translator.translate(page.slice(0, 4), options);  // warm-up

const tokensOf = (results) => results.map((r) => r.sentences.map((s) => Array.from(s.tokens).join(' ')).join('|'));
const count = (results) => results.reduce((n, r) => n + r.tokens.length, 0);

async function batched() {
  const t0 = performance.now();
  const results = await translator.translate(page, options);
  return { ms: performance.now() - t0, results };
}

async function oneByOne() {
  const t0 = performance.now();
  const results = [];
  for (const p of page) results.push(await translator.translate(p, options));
  return { ms: performance.now() - t0, results };
}

const best = { batched: null, single: null };
const load0 = loadavg()[0];
for (let r = 0; r < runs; r++) {
  // Alternate the order, so that neither way always runs on a warmer machine.
  const order = r % 2 ? [['single', oneByOne], ['batched', batched]] : [['batched', batched], ['single', oneByOne]];
  for (const [name, run] of order) {
    const got = await run();
    if (!best[name] || got.ms < best[name].ms) best[name] = got;
  }
}
const load1 = loadavg()[0];
translator.dispose();

const sentences = best.batched.results.reduce((n, r) => n + r.sentences.length, 0);
const same = tokensOf(best.batched.results).filter((t, i) => t === tokensOf(best.single.results)[i]).length;
const row = (name, { ms, results }) => {
  const tokens = count(results);
  return `${name.padEnd(28)} ${(ms / 1000).toFixed(2).padStart(8)} s ${(tokens / (ms / 1000)).toFixed(0).padStart(8)} tokens/s ` +
    `${(sentences / (ms / 1000)).toFixed(1).padStart(7)} sentences/s`;
};
console.log(`CPU: ${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores); load average ${load0.toFixed(2)} before, ${load1.toFixed(2)} after`);
console.log(`model ${a.model}, ${paragraphs} paragraphs of ${perParagraph} sentence(s) from ${a.input} (${sentences} sentences, ` +
  `${count(best.batched.results)} target tokens)${a.html ? ', html: true' : ''}; threaded wasm, ${threads} threads; best of ${runs} runs`);
console.log(row('batched (1 request)', best.batched));
console.log(row(`per paragraph (${paragraphs} requests)`, best.single));
console.log(`ratio per-paragraph / batched: ${(best.single.ms / best.batched.ms).toFixed(2)}x`);
console.log(`same tokens both ways: ${same} of ${paragraphs} paragraphs`);
if (same !== paragraphs) process.exitCode = 1;
