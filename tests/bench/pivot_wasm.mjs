// Pivot against direct throughput in wasm (node): the same two Marian folders tests/bench/pivot.py
// makes (the shipped tiny.deen as de->en, tiny.ende as en->xx, exported as Firefox ships its
// models), imported by Module.importMarian; direct = de->en's translate(), pivot = its
// translateThrough(en->xx), on the same FLORES devtest lines, alternating, best of --runs.
//
//   node tests/bench/pivot_wasm.mjs WORK [--variant mt|st] [--threads 1] [--lines 200] [--runs 3]
//   (WORK: the --work folder of tests/bench/pivot.py)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadVariant, repoRoot } from '../wasm/load_module.mjs';

const args = process.argv.slice(2);
const work = args[0];
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const variant = flag('variant', 'mt');
const threads = Number(flag('threads', '1'));
const lines = Number(flag('lines', '200'));
const runs = Number(flag('runs', '3'));

const M = await loadVariant(variant);
const load = (name) => {
  const dir = path.join(work, name);
  const files = readdirSync(dir).map((n) => ({ name: n, bytes: new Uint8Array(readFileSync(path.join(dir, n))) }));
  return new M.Translator(M.importMarian(files, {}).tfm, threads);
};
const first = load('firefox-deen');
const second = load('firefox-enxx');
const text = readFileSync(path.join(repoRoot, '..', 'shared', 'data', 'deen', 'test', 'flores-devtest.de'), 'utf8')
  .split('\n').filter(Boolean).slice(0, lines);
first.translate(text.slice(0, 4), {});
first.translateThrough(second, text.slice(0, 4), {});
const best = { direct: 0, pivot: 0 };
for (let r = 0; r < runs; r++) {
  for (const kind of ['direct', 'pivot']) {
    const t0 = performance.now();
    const out = kind === 'direct' ? first.translate(text, {}) : first.translateThrough(second, text, {});
    const s = (performance.now() - t0) / 1000;
    const sentences = out.reduce((n, x) => n + x.sentences.length, 0);
    best[kind] = Math.max(best[kind], sentences / s);
  }
}
console.log(`wasm ${variant}, ${threads} thread(s), ${lines} lines: direct ${best.direct.toFixed(1)} sentences/s, ` +
  `pivot ${best.pivot.toFixed(1)} sentences/s, pivot / direct ${(best.pivot / best.direct).toFixed(2)}`);
first.delete();
second.delete();
M.PThread?.terminateAllThreads();
