#!/usr/bin/env node
// What splitting one request into several engine calls costs, as a stream splits it: the same
// sentences translated by translate() in one call and in calls of the sizes given, through the
// npm package in Node (its Worker, the threaded wasm build), at each thread count. Wall time and
// the process's CPU time (the engine's threads included), medians of --runs runs; the splits
// alternate within each run. Also single calls of 1, 2 and 4 sentences: what a small batch costs
// against its share of the whole.
//
//   node tests/bench/stream_calls.mjs [--model models/tiny.deen/model.int8.tfm]
//        [--input ../shared/data/deen/test/flores-devtest.de] [--threads 1,2] [--runs 3]
//
// Each split is a list of call sizes over the first 100 sentences of --input (each call's
// sentences joined by spaces, one text).
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: a } = parseArgs({ options: {
  model: { type: 'string', default: path.join(repo, 'models', 'tiny.deen', 'model.int8.tfm') },
  input: { type: 'string', default: path.join(repo, '..', 'shared', 'data', 'deen', 'test', 'flores-devtest.de') },
  threads: { type: 'string', default: '1,2' },
  runs: { type: 'string', default: '3' },
} });
const runs = Number(a.runs);
const threadCounts = a.threads.split(',').map(Number);
if (!Number.isInteger(runs) || runs < 1 || !threadCounts.every((n) => Number.isInteger(n) && n >= 1)) {
  console.error('stream_calls: --runs must be a positive integer and --threads positive integers separated by commas');
  process.exit(2);
}
for (const [what, file] of [['--model', a.model], ['--input', a.input], ['web/dist (npm run build in web/)', path.join(repo, 'web', 'dist', 'tformer-mt.wasm')]]) {
  if (!existsSync(file)) {
    console.error(`stream_calls: ${what}: no such file: ${file}`);
    process.exit(2);
  }
}
const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 100);
if (lines.length < 100) {
  console.error(`stream_calls: ${a.input} has ${lines.length} sentences, 100 needed`);
  process.exit(2);
}
const splits = {
  '100': [100],
  '1+99': [1, 99],
  '1+2+4+93': [1, 2, 4, 93],
  '1+2+4+64+29': [1, 2, 4, 64, 29],
  '1 alone': [1],
  '2 alone': [2],
  '4 alone': [4],
};
const { Translator } = await import(path.join(repo, 'web', 'src', 'index.js'));
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const load0 = loadavg()[0];
const table = [];
for (const threads of threadCounts) {
  const t = await Translator.create({ model: path.resolve(a.model), variant: 'threaded', threads, backend: 'wasm' });
  await t.translate(lines.slice(0, 3).join(' '));  // warm-up
  const times = {};
  for (let r = 0; r < runs; r++) {
    for (const [name, sizes] of Object.entries(splits)) {
      let at = 0;
      const t0 = performance.now(), c0 = cpu();
      for (const n of sizes) {
        await t.translate(lines.slice(at, at + n).join(' '));
        at += n;
      }
      (times[name] ??= []).push({ wall: performance.now() - t0, cpu: cpu() - c0 });
    }
  }
  t.dispose();
  const whole = { wall: median(times['100'].map((x) => x.wall)), cpu: median(times['100'].map((x) => x.cpu)) };
  for (const [name, rows] of Object.entries(times)) {
    const wall = median(rows.map((x) => x.wall)), cpuMs = median(rows.map((x) => x.cpu));
    table.push({ threads, name, wall, cpuMs, wallX: wall / whole.wall, cpuX: cpuMs / whole.cpu });
  }
}
console.log(`CPU: ${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores); load average ${load0.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`);
console.log(`model ${path.relative(process.cwd(), a.model)}, the first 100 sentences of ${path.relative(process.cwd(), a.input)}; threaded wasm; medians of ${runs} runs`);
console.log('threads  calls (sentences)  wall ms  x one call  CPU ms  x one call');
for (const r of table) {
  console.log(`${String(r.threads).padStart(7)}  ${r.name.padEnd(17)}  ${r.wall.toFixed(0).padStart(7)}  ${r.wallX.toFixed(3).padStart(10)}  ` +
    `${r.cpuMs.toFixed(0).padStart(6)}  ${r.cpuX.toFixed(3).padStart(10)}`);
}
process.exit(0);
