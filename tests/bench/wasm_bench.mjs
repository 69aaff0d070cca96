#!/usr/bin/env node
// The wasm equivalent of `tformer bench`, under node, beside the native build in the same run.
//
//   node tests/bench/wasm_bench.mjs --model MODEL.tfm --input FILE [--lines N] [--beam N]
//        [--max-length N] [--variants mt1,mt2,st,mtr1] [--no-native] [--profile] [--no-shortlist]
//        [--latency N] [--json OUT.json]
//
// Rows: the threaded module (tformer-mt) with 1 and 2 threads, the single-threaded one (tformer-st),
// optionally the threaded relaxed-SIMD one (mtr<threads>: node 22+, build-wasm-relaxed),
// and build/tformer bench at 1 and 2 threads on the same model and lines. Each row runs in its own
// process (tests/bench/peers/tformer_wasm.mjs for wasm), one after the other. Printed per row:
// sentences/s, target tokens/s, ms/sentence (batch seconds / sentences), peak RSS, and the ratio
// wasm / native at the same thread count (native 1 thread for st): tokens/s wasm / tokens/s native,
// so 0.5 means the wasm build runs at half the native speed. Outputs of the wasm rows are compared
// with each other token for token (they must be equal: same engine, same rules).
// --profile: each row also reports where its batch's time went, per phase (the engine's timers,
// `tformer bench --profile` natively, Module.profileTake in wasm), printed as ms and % per row.
// --no-shortlist: every row scores the whole vocabulary even where the model has a lexical
// shortlist. --latency N: every row also translates the first N lines one request each (median and
// p90 ms per request, as the native rows' `tformer bench` reports for the first 100 lines).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runner = join(repo, 'tests', 'bench', 'peers', 'tformer_wasm.mjs');
const tformer = join(repo, 'build', 'tformer');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 2).join(' ')}: exit ${r.status ?? r.signal}\n${r.stderr}${r.stdout}`);
  return r;
}

const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

function parseVariant(v) {
  const m = /^(mtr|mt|st)(\d*)$/.exec(v);
  if (!m) throw new Error(`--variants: '${v}' is not mt<threads>, mtr<threads> or st`);
  return { variant: m[1], threads: m[1] === 'st' ? 1 : Number(m[2] || 1) };
}

async function main() {
  const { values: a } = parseArgs({ options: {
    model: { type: 'string' }, input: { type: 'string' }, lines: { type: 'string', default: '0' },
    beam: { type: 'string', default: '1' }, 'max-length': { type: 'string', default: '0' },
    variants: { type: 'string', default: 'mt1,mt2,st' }, 'no-native': { type: 'boolean', default: false },
    json: { type: 'string' }, profile: { type: 'boolean', default: false },
    'no-shortlist': { type: 'boolean', default: false }, latency: { type: 'string', default: '0' },
  } });
  if (!a.model || !a.input) {
    console.error('usage: node tests/bench/wasm_bench.mjs --model MODEL.tfm --input FILE [--lines N] [--beam N] [--variants mt1,mt2,st,mtr1]');
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'tformer-wasm-bench-'));
  let lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l);
  if (Number(a.lines) > 0) lines = lines.slice(0, Number(a.lines));
  const input = join(work, 'input.txt');
  writeFileSync(input, lines.join('\n') + '\n');
  const model = resolve(a.model), beam = Number(a.beam), maxLength = Number(a['max-length']);
  const configs = a.variants.split(',').map(parseVariant);
  const load0 = loadavg();

  const native = new Map();
  if (!a['no-native']) {
    if (!existsSync(tformer)) throw new Error('build/tformer missing (native build), or pass --no-native');
    for (const threads of [...new Set(configs.map((c) => c.threads))]) {
      const out = join(work, `native.t${threads}.json`);
      // The plain model, as the wasm rows run it (peers/tformer_wasm.mjs).
      const args = ['bench', '-m', model, '-i', input, '--no-split', '--threads', String(threads), '--beam', String(beam), '--json', out,
        '--no-passthrough', '--no-repetition-guard'];
      if (maxLength) args.push('--max-length', String(maxLength));
      if (a.profile) args.push('--profile');
      if (a['no-shortlist']) args.push('--no-shortlist');
      console.error(`native: ${threads} thread(s), beam ${beam}`);
      run(tformer, args);
      native.set(threads, { ...readJson(out), label: `native ${threads}t` });
    }
  }
  const rows = [];
  for (const c of configs) {
    const out = join(work, `wasm.${c.variant}${c.threads}.json`);
    console.error(`wasm ${c.variant}: ${c.threads} thread(s), beam ${beam}`);
    run(process.execPath, [runner, '--model', model, '--input', input, '--variant', c.variant,
      '--threads', String(c.threads), '--beam', String(beam), '--max-length', String(maxLength), '--json', out,
      ...(a.profile ? ['--profile'] : []), ...(a['no-shortlist'] ? ['--no-shortlist'] : []), '--latency', a.latency]);
    const r = readJson(out);
    r.label = `wasm ${c.variant} ${c.threads}t`;
    const n = native.get(c.threads);
    if (n) r.ratio_native = r.tokens_per_s / n.tokens_per_s;
    rows.push(r);
  }

  const all = [...native.values(), ...rows];
  const head = ['row', 'sent/s', 'tok/s', 'ms/sent', 'peak MB', 'wasm/native', 'request median ms', 'p90 ms'];
  const median = (r) => r.latency_ms?.median ?? r.latency_median_ms;  // wasm rows / tformer bench
  const p90 = (r) => r.latency_ms?.p90 ?? r.latency_p90_ms;
  const body = all.map((r) => [r.label, r.sentences_per_s.toFixed(1), r.tokens_per_s.toFixed(0), r.ms_per_sentence.toFixed(2),
    r.peak_rss_mb.toFixed(0), r.ratio_native ? r.ratio_native.toFixed(2) : '', median(r)?.toFixed(2) ?? '', p90(r)?.toFixed(2) ?? '']);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => cells.map((c, i) => (i ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ');
  console.log(`${model}: ${lines.length} lines, beam ${beam}${maxLength ? `, max length ${maxLength}` : ''}` +
    (a['no-shortlist'] ? ', whole vocabulary (--no-shortlist)' : ''));
  console.log([fmt(head), ...body.map(fmt)].join('\n'));
  console.log('wasm/native: target tokens/s of the wasm row / native at the same threads (st: native 1 thread).');
  if (a.profile) {
    const phases = Object.keys(all[0].profile_ms);
    const cell = (r, p) => `${r.profile_ms[p].toFixed(0)} ms ${(100 * r.profile_ms[p] / (1000 * r.seconds)).toFixed(1)}%`;
    const ph = ['phase', ...all.map((r) => r.label)];
    const pb = phases.map((p) => [p, ...all.map((r) => cell(r, p))]);
    const pw = ph.map((h, i) => Math.max(h.length, ...pb.map((b) => b[i].length)));
    const pf = (cells) => cells.map((c, i) => (i ? c.padStart(pw[i]) : c.padEnd(pw[i]))).join('  ');
    console.log(`profile of the batch (ms and % of its time):\n${[pf(ph), ...pb.map(pf)].join('\n')}`);
  }
  const checks = rows.slice(1).map((r) => {
    let same = 0;
    r.outputs.forEach((o, i) => { same += JSON.stringify(o.tokens) === JSON.stringify(rows[0].outputs[i]?.tokens); });
    console.log(`check: ${r.label} vs ${rows[0].label}: token ids equal ${same}/${r.outputs.length}`);
    return { a: rows[0].label, b: r.label, equal: same, of: r.outputs.length };
  });
  const load1 = loadavg();
  console.log(`load average ${load0.map((x) => x.toFixed(2)).join(' ')} -> ${load1.map((x) => x.toFixed(2)).join(' ')}; ${cpus().length} cores`);
  if (a.json) {
    const meta = { date: new Date().toISOString(), model, input: resolve(a.input), lines: lines.length, beam, max_length: maxLength,
      shortlist: !a['no-shortlist'],
      cpu: cpus()[0]?.model, cores: cpus().length, loadavg_start: load0, loadavg_end: load1, node: process.version };
    writeFileSync(a.json, JSON.stringify({ meta, native: [...native.values()], wasm: rows.map(({ outputs, ...r }) => r), checks }, null, 1));
  }
  if (checks.some((c) => c.equal !== c.of)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`wasm_bench.mjs: ${e.stack || e}`);
  process.exit(1);
});
