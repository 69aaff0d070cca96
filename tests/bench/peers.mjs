#!/usr/bin/env node
// Side-by-side speed of tformer and its peers on the same model and the same sentences.
//
//   node tests/bench/peers.mjs --model MODEL.tfm --input FILE [--lines 200] [--threads 1,2] [--beams 1,4]
//        [--max-length N] [--runners a,b,...] [--repeat 1] [--row-timeout S] [--work DIR] [--onnx DIR]
//        [--json OUT.json] [--no-check]
//
// Rows: tformer native (build/tformer bench), ONNX Runtime native (onnxruntime-node) and wasm
// (onnxruntime-web in node), the PyTorch reference; slots for rows still to come are listed as pending.
// Every row runs in its own process, one at a time; for each beam and thread count the rows run back to
// back, so ratios compare runs made under the same machine load. Ratios are tformer native / row at
// the same beam and threads (speed: > 1 means tformer is faster; memory and model bytes: < 1 means
// tformer is smaller).
// What is timed: translating the whole file after loading the model and a warm-up on 4 sentences.
// The peers get token ids (tests/bench/peers/ids.py encode) and return ids; tformer's bench times its
// C++ SentencePiece encode/decode too (the meta records what encoding costs in Python, for scale).
// Unless --no-check, greedy and beam outputs of all rows are compared token for token (tformer through
// `tformer translate --scores`: text and score).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const peersDir = join(repo, 'tests', 'bench', 'peers');
const PYTHON = '/usr/bin/python3';  // Debian's, with torch (TOOLCHAIN.md)

let rowTimeoutMs = 0;  // --row-timeout: a row that runs longer is reported as such

function run(cmd, args, { quiet = false } = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28, timeout: rowTimeoutMs || undefined });
  if (r.error?.code === 'ETIMEDOUT') throw new Error(`stopped after --row-timeout ${rowTimeoutMs / 1000} s`);
  if (r.status !== 0) {
    const why = r.signal ? `killed by ${r.signal}` : `exit status ${r.status}`;
    throw new Error(`${cmd.split('/').at(-1)} ${args[0].split('/').at(-1)}: ${why}\n${r.stderr}${r.stdout}`);
  }
  if (!quiet && r.stderr.trim()) process.stderr.write(`  ${r.stderr.trim().split('\n').at(-1)}\n`);
  return r;
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

// ---- runners: each is one entry; run(ctx, {threads, beam}) returns a row with the common fields ----
// Common fields: sentences, target_tokens, seconds, sentences_per_s, tokens_per_s, ms_per_sentence,
// peak_rss_mb (process peak RSS), model_bytes, load_ms, engine, timed; optional outputs (ids, for checks).

const tformerBinary = () => join(repo, 'build', 'tformer');

function peerArgs(ctx, { threads, beam }, out) {
  return ['--threads', String(threads), '--beam', String(beam), '--max-length', String(ctx.maxLength), '--json', out];
}

const RUNNERS = [
  {
    name: 'tformer-native', label: 'tformer native f32', baseline: true,
    available: () => existsSync(tformerBinary()) || 'build/tformer missing (cmake build)',
    run(ctx, cfg) {
      const out = join(ctx.work, `tformer-native.t${cfg.threads}.b${cfg.beam}.json`);
      const args = ['bench', '-m', ctx.model, '-i', ctx.input, '--no-split', '--threads', String(cfg.threads),
        '--beam', String(cfg.beam), '--json', out];
      if (ctx.maxLength) args.push('--max-length', String(ctx.maxLength));
      run(tformerBinary(), args, { quiet: true });
      const r = readJson(out);
      return { ...r, engine: `tformer ${r.backend}`, model_bytes: statSync(ctx.model).size,
        timed: 'tformer bench: whole file, incl. C++ SentencePiece encode/decode' };
    },
  },
  { name: 'tformer-wasm', label: 'tformer wasm (node)', pending: 'waits for the wasm build and web/ package' },
  {
    name: 'ort-node', label: 'ONNX Runtime native',
    available: (ctx) => ctx.onnx !== null || 'no ONNX export',
    run(ctx, cfg) {
      const out = join(ctx.work, `ort-node.t${cfg.threads}.b${cfg.beam}.json`);
      run('node', [join(peersDir, 'ort.mjs'), '--onnx', ctx.onnx, '--ids', ctx.ids, '--backend', 'node',
        ...peerArgs(ctx, cfg, out)]);
      return readJson(out);
    },
  },
  {
    name: 'ort-web', label: 'ONNX Runtime wasm (node)',
    available: (ctx) => ctx.onnx !== null || 'no ONNX export',
    run(ctx, cfg) {
      const out = join(ctx.work, `ort-web.t${cfg.threads}.b${cfg.beam}.json`);
      run('node', [join(peersDir, 'ort.mjs'), '--onnx', ctx.onnx, '--ids', ctx.ids, '--backend', 'web',
        ...peerArgs(ctx, cfg, out)]);
      return readJson(out);
    },
  },
  {
    name: 'pytorch', label: 'PyTorch reference',
    available: () => existsSync(PYTHON) || `${PYTHON} missing`,
    run(ctx, cfg) {
      const out = join(ctx.work, `pytorch.t${cfg.threads}.b${cfg.beam}.json`);
      run(PYTHON, [join(peersDir, 'pytorch.py'), '--model', ctx.model, '--ids', ctx.ids, ...peerArgs(ctx, cfg, out)]);
      return readJson(out);
    },
  },
  { name: 'tformer-native-int8', label: 'tformer native int8', pending: "waits for the engine's int8 matmuls (i8 weights are widened to f32 at load today)" },
  { name: 'ort-node-int8', label: 'ONNX Runtime native int8', pending: 'needs an int8 ONNX export: no Python onnxruntime (its quantizer) here' },
  { name: 'tformer-wasm-int8', label: 'tformer wasm int8 (node)', pending: 'waits for the wasm build' },
  { name: 'bergamot-wasm', label: 'Bergamot wasm (node)', pending: 'waits for the .tfm -> Marian .bin converter (MARIAN.md); single-threaded' },
];

// ---- table ----

const FIELDS = [
  ['sent/s', (r) => r.sentences_per_s.toFixed(1)],
  ['tok/s', (r) => r.tokens_per_s.toFixed(0)],
  ['ms/sent', (r) => r.ms_per_sentence.toFixed(1)],
  ['peak MB', (r) => r.peak_rss_mb.toFixed(0)],
  ['model MB', (r) => (r.model_bytes / 1e6).toFixed(1)],
  // tformer native / this row, same beam and threads.
  ['x tok/s', (r) => (r.ratio ? r.ratio.tokens_per_s.toFixed(2) : '')],
  ['x peak', (r) => (r.ratio ? r.ratio.peak_rss_mb.toFixed(2) : '')],
  ['x model', (r) => (r.ratio ? r.ratio.model_bytes.toFixed(2) : '')],
];

function table(rows) {
  const head = ['row', 'thr', 'beam', ...FIELDS.map(([h]) => h)];
  const body = rows.map((r) => [r.label, String(r.threads ?? ''), String(r.beam ?? ''),
    ...(r.status === 'ok' ? FIELDS.map(([, f]) => f(r)) : [`${r.status}: ${r.reason}`])]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b.length === head.length || i < 3 ? b[i].length : 0))));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(head), ...body.map((b) => (b.length === head.length ? line(b) : `${line(b.slice(0, 3))}  ${b[3]}`))].join('\n');
}

// ---- correctness: every row's outputs against the others, token for token ----

function check(ctx, rowsByBeam) {
  const checks = [];
  for (const [beam, rows] of rowsByBeam) {
    const withIds = rows.filter((r) => r.status === 'ok' && r.outputs);
    if (!withIds.length) continue;
    const ref = withIds[0];
    for (const r of withIds.slice(1)) {
      let same = 0;
      r.outputs.forEach((o, i) => { same += JSON.stringify(o?.tokens) === JSON.stringify(ref.outputs[i]?.tokens); });
      checks.push({ beam, a: `${ref.runner} t${ref.threads}`, b: `${r.runner} t${r.threads}`, what: 'token ids', equal: same, of: r.outputs.length });
    }
    if (ctx.runners.has('tformer-native') && existsSync(tformerBinary())) {
      // tformer's text and score per line against the first peer's ids decoded to text.
      const args = ['translate', '-m', ctx.model, '--no-split', '--scores', '--threads', '1', '--beam', String(beam)];
      if (ctx.maxLength) args.push('--max-length', String(ctx.maxLength));
      const t = spawnSync(tformerBinary(), args, { input: readFileSync(ctx.input), encoding: 'utf8', maxBuffer: 1 << 28 });
      const peerFile = join(ctx.work, `check.${ref.runner}.b${beam}.json`);
      writeFileSync(peerFile, JSON.stringify({ outputs: ref.outputs }));
      const texts = run(PYTHON, [join(peersDir, 'ids.py'), 'decode', ctx.model, peerFile], { quiet: true }).stdout.split('\n');
      const lines = t.stdout.split('\n').slice(0, ref.outputs.length);
      let same = 0, maxScoreDiff = 0;
      lines.forEach((l, i) => {
        const [score, text] = [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)];
        if (text === texts[i]) same += 1;
        if (ref.outputs[i]) maxScoreDiff = Math.max(maxScoreDiff, Math.abs(Number(score) - ref.outputs[i].score));
      });
      checks.push({ beam, a: `${ref.runner} t${ref.threads}`, b: 'tformer translate t1', what: 'text and score',
        equal: same, of: ref.outputs.length, max_score_diff: maxScoreDiff });
    }
  }
  return checks;
}

// ---- main ----

async function main() {
  const { values: a } = parseArgs({ options: {
    model: { type: 'string' }, input: { type: 'string' }, lines: { type: 'string', default: '200' },
    threads: { type: 'string', default: '1,2' }, beams: { type: 'string', default: '1,4' },
    'max-length': { type: 'string', default: '0' }, runners: { type: 'string' }, repeat: { type: 'string', default: '1' },
    'row-timeout': { type: 'string', default: '0' }, work: { type: 'string' }, onnx: { type: 'string' }, json: { type: 'string' }, 'no-check': { type: 'boolean', default: false },
  } });
  if (!a.model || !a.input) throw new Error('usage: peers.mjs --model MODEL.tfm --input FILE [options]; see the header');
  const work = resolve(a.work ?? mkdtempSync(join(tmpdir(), 'tformer-peers-')));
  mkdirSync(work, { recursive: true });
  const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l).slice(0, Number(a.lines));
  const ctx = { model: resolve(a.model), input: join(work, 'input.txt'), ids: join(work, 'ids.json'), work,
    maxLength: Number(a['max-length']), onnx: null,
    runners: new Set(a.runners ? a.runners.split(',') : RUNNERS.map((r) => r.name)) };
  writeFileSync(ctx.input, lines.join('\n') + '\n');
  console.error(`work folder ${work}: ${lines.length} lines`);
  run(PYTHON, [join(peersDir, 'ids.py'), 'encode', ctx.model, ctx.input, '-o', ctx.ids]);
  if ([...ctx.runners].some((n) => n.startsWith('ort-'))) {
    ctx.onnx = resolve(a.onnx ?? join(work, 'onnx'));
    if (!existsSync(join(ctx.onnx, 'tformer.json')))
      run(PYTHON, [join(repo, 'models', 'tfm'), 'export-onnx', ctx.model, '-o', ctx.onnx]);
  }

  const rows = [], rowsByBeam = new Map();
  rowTimeoutMs = 1000 * Number(a['row-timeout']);
  const startLoad = loadavg();
  for (const beam of a.beams.split(',').map(Number)) {
    rowsByBeam.set(beam, []);
    for (const threads of a.threads.split(',').map(Number)) {
      let baseline = null;
      for (const runner of RUNNERS.filter((r) => ctx.runners.has(r.name))) {
        const row = { runner: runner.name, label: runner.label, threads, beam };
        const ok = runner.pending ? runner.pending : runner.available(ctx);
        if (ok !== true) {
          Object.assign(row, { status: 'pending', reason: ok });
          if (threads === 1 && beam === Number(a.beams.split(',')[0])) rows.push({ ...row, threads: null, beam: null });
          continue;
        }
        try {
          let best = null;
          for (let i = 0; i < Number(a.repeat); ++i) {
            console.error(`${runner.name}: ${threads} thread(s), beam ${beam}${i ? ` (repeat ${i + 1})` : ''}`);
            const r = runner.run(ctx, { threads, beam });
            if (!best || r.seconds < best.seconds) best = r;
          }
          Object.assign(row, best, { runner: runner.name, label: runner.label, status: 'ok' });
        } catch (e) {
          Object.assign(row, { status: 'failed', reason: String(e.message).split('\n')[0] });
          console.error(e.message);
        }
        if (runner.baseline && row.status === 'ok') baseline = row;
        if (!runner.baseline && baseline && row.status === 'ok')
          row.ratio = { tokens_per_s: baseline.tokens_per_s / row.tokens_per_s, sentences_per_s: baseline.sentences_per_s / row.sentences_per_s,
            peak_rss_mb: baseline.peak_rss_mb / row.peak_rss_mb, model_bytes: baseline.model_bytes / row.model_bytes };
        rows.push(row);
        rowsByBeam.get(beam).push(row);
      }
    }
  }
  rowTimeoutMs = 0;
  const checks = a['no-check'] ? [] : check(ctx, rowsByBeam);
  const ids = readJson(ctx.ids);
  const meta = {
    date: new Date().toISOString(), model: ctx.model, input: resolve(a.input), lines: lines.length,
    source_tokens: ids.source_tokens, python_sentencepiece_encode_ms: ids.encode_ms, max_length: ctx.maxLength,
    length_rule: 'target length limit floor(2 * source tokens incl. EOS), capped by max_length when > 0',
    batching: 'length-sorted batches of at most 4096 padded source tokens (all rows)',
    repeat: Number(a.repeat), cpu: cpus()[0]?.model, cores: cpus().length, loadavg_start: startLoad, loadavg_end: loadavg(),
    node: process.version, onnx: ctx.onnx,
  };
  const printable = [...rows.filter((r) => r.status !== 'pending'), ...rows.filter((r) => r.status === 'pending')];
  console.log(table(printable));
  console.log('x ...: tformer native / row at the same beam and threads (x tok/s > 1: tformer faster; '
    + 'x peak, x model < 1: tformer smaller). ms/sent = timed seconds / sentences (batched).');
  for (const c of checks)
    console.log(`check beam ${c.beam}: ${c.a} vs ${c.b}: ${c.what} equal ${c.equal}/${c.of}${c.max_score_diff !== undefined ? `, max score diff ${c.max_score_diff.toExponential(1)}` : ''}`);
  console.log(`load average ${meta.loadavg_start.map((x) => x.toFixed(2)).join(' ')} -> ${meta.loadavg_end.map((x) => x.toFixed(2)).join(' ')}; ${meta.cores} cores`);
  const out = a.json ?? join(work, 'peers.json');
  writeFileSync(out, JSON.stringify({ meta, rows: rows.map(({ outputs, ...r }) => r), checks }, null, 1));
  console.error(`wrote ${out}`);
}

main().catch((e) => {
  console.error(`peers.mjs: ${e.stack || e}`);
  process.exit(1);
});
