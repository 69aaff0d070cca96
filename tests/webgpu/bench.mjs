#!/usr/bin/env node
// WebGPU backend against wasm, on the same model, in one run (node: the wasm module from
// build-wasm/ and npm `webgpu`; without a GPU that is SwiftShader, a CPU rasteriser, so its times
// say nothing about a real GPU: what carries over is the count of GPU round trips).
//
//   node tests/webgpu/bench.mjs [--model FILE.tfm] [--paragraph 12] [--batch 32] [--max-length 0]
//        [--beam 1] [--variant st|mt] [--threads 1] [--repeat 1] [--max-words N]
//        [--runners translate,session,webgpu,webgpu-logits] [--gpu-weights f32|auto] [--json OUT.json]
//
// Workloads: a long paragraph (--paragraph sentences of the flores test set in one text, split by
// the engine) and a batch (--batch separate sentences). Rows, for each:
//   wasm translate()   the engine's own loop (C++)
//   wasm session       the same translation driven step by step from JS (runSession, no GPU):
//                      the cost of the step-wise design (two JS<->wasm crossings per step)
//   webgpu session     encoder and output projection on WebGPU, the rest in wasm; a step reads
//                      back each row's best candidates (logSoftmaxTopK)
//   webgpu, full logits  the same reading back full logits (--runners ...,webgpu-logits)
// --gpu-weights: f32 (default: the f32 weights SwiftShader needs) or auto (f16 weights where the
// adapter has shader-f16, as the package does on a real GPU).
// Per row: time, sentences/s, target tokens/s; for WebGPU the submissions and readbacks per
// sentence, the bytes read back, and where the time went (waiting for the GPU, wasm's next() =
// decoder layers + search, copying results into wasm). The model defaults to the larger random
// model of the tests (shipped "tiny" shape: d 256, 6 + 2 layers, 16k vocabulary).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';

import { nodeRuntime } from './node_gpu.mjs';
import { largeModel, germanSentences } from './models.mjs';
import { loadVariant, options as translateOptions } from '../wasm/load_module.mjs';
import { WebGpuBackend } from '../../web/src/webgpu/backend.js';
import { runSession } from '../../web/src/run-session.js';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' }, paragraph: { type: 'string', default: '12' }, batch: { type: 'string', default: '32' },
    'max-length': { type: 'string', default: '0' }, beam: { type: 'string', default: '1' },
    variant: { type: 'string', default: 'st' }, threads: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '1' }, json: { type: 'string' }, 'max-words': { type: 'string' },
    runners: { type: 'string', default: 'translate,session,webgpu,webgpu-logits' },
    'gpu-weights': { type: 'string', default: 'f32' },
  },
});

const modelFile = args.model ?? largeModel().file;
if (!modelFile) throw new Error(largeModel().reason);
const threads = Number(args.threads);
const repeat = Number(args.repeat);
const options = translateOptions({ beam: Number(args.beam), nbest: 1, maxLength: Number(args['max-length']) });

const Module = await loadVariant(args.variant);
const translator = new Module.Translator(new Uint8Array(readFileSync(modelFile)), threads);
const withGpu = args.runners.split(',').some((r) => r.startsWith('webgpu'));
if (!['f32', 'auto'].includes(args['gpu-weights'])) throw new Error(`--gpu-weights: f32 or auto, not ${args['gpu-weights']}`);
const { runtime, reason } = withGpu ? await nodeRuntime({ f16Weights: args['gpu-weights'] === 'auto' ? 'auto' : false }) : { runtime: null };
if (withGpu && !runtime) throw new Error(reason);
const t0 = performance.now();
// A GPU failure would make the WebGPU rows wasm rows: it stops the benchmark instead.
const made = withGpu ? await WebGpuBackend.create(translator, { runtime, onFallback: (e) => { throw e; } }) : { backend: null };
const uploadMs = performance.now() - t0;
if (withGpu && !made.backend) throw new Error(`no WebGPU backend: ${made.reason}`);
const backend = made.backend;
const adapter = runtime?.adapter.info ?? {};
const config = translator.info().config;

// Wraps the methods of an object so that the time spent in each is summed in `into`.
function timeMethods(object, names, into) {
  for (const name of names) {
    const method = object[name].bind(object);
    into[name] ??= 0;
    object[name] = (...a) => {
      const start = performance.now();
      const result = method(...a);
      if (result instanceof Promise) return result.finally(() => { into[name] += performance.now() - start; });
      into[name] += performance.now() - start;
      return result;
    };
  }
}

const countTokens = (results) => results.reduce((n, r) => n + r.sentences.reduce((m, s) => m + s.tokens.length, 0), 0);
const countSentences = (results) => results.reduce((n, r) => n + r.sentences.length, 0);
const tokensOf = (results) => results.flatMap((r) => r.sentences.map((s) => Array.from(s.tokens).join(' ')));

const ALL_RUNNERS = {
  'wasm translate()': async (texts) => ({ results: translator.translate(texts, options) }),
  'wasm session': async (texts) => {
    const time = {};
    const session = translator.begin(texts, options);
    timeMethods(session, ['next', 'computeOnCpu'], time);
    return { results: await runSession(session, null), time };
  },
  'webgpu session': (texts) => onGpu(texts, { candidates: true }),
  'webgpu, full logits': (texts) => onGpu(texts, { candidates: false }),
};

async function onGpu(texts, { candidates }) {
  const time = {};
  const session = translator.begin(texts, options);
  timeMethods(session, ['next', 'provideEncoderOutput', 'provideLogits', 'provideCandidates', 'computeOnCpu'], time);
  const saved = { encode: backend.encode, project: backend.project, projectCandidates: backend.projectCandidates };
  timeMethods(backend, ['encode', 'project', 'projectCandidates'], time);
  backend.candidates = candidates;
  backend.resetCounters();
  try {
    return { results: await runSession(session, backend), time, counters: backend.counters };
  } finally {
    Object.assign(backend, saved);
  }
}

const RUNNER_KEYS = { translate: 'wasm translate()', session: 'wasm session', webgpu: 'webgpu session', 'webgpu-logits': 'webgpu, full logits' };
const RUNNERS = Object.fromEntries(['translate', ...args.runners.split(',').filter((r) => r !== 'translate')].map((key) => {
  if (!RUNNER_KEYS[key]) throw new Error(`unknown runner ${key} (${Object.keys(RUNNER_KEYS).join(', ')})`);
  return [RUNNER_KEYS[key], ALL_RUNNERS[RUNNER_KEYS[key]]];
}));

async function measure(name, texts) {
  await RUNNERS[name](texts.slice(0, 2)); // warm-up: pipelines, scratch buffers, XNNPACK
  let best = null;
  for (let i = 0; i < repeat; ++i) {
    const start = performance.now();
    const run = await RUNNERS[name](texts);
    run.ms = performance.now() - start;
    if (!best || run.ms < best.ms) best = run;
  }
  const sentences = countSentences(best.results);
  const row = {
    workload: null, runner: name, sentences, target_tokens: countTokens(best.results), ms: best.ms,
    sentences_per_s: sentences / (best.ms / 1000), tokens_per_s: countTokens(best.results) / (best.ms / 1000),
    time_ms: best.time, tokens: tokensOf(best.results),
  };
  if (best.counters) {
    const c = best.counters;
    Object.assign(row, { encodes: c.encodes, steps: c.projections, submissions: c.submissions, readbacks: c.readbacks,
      submissions_per_sentence: c.submissions / sentences, readbacks_per_sentence: c.readbacks / sentences,
      read_kib_per_sentence: c.readBytes / 1024 / sentences, uploaded_kib_per_sentence: c.uploadedBytes / 1024 / sentences });
  }
  return row;
}

const maxWords = args['max-words'] ? Number(args['max-words']) : Infinity;
const paragraphText = germanSentences(Number(args.paragraph), { maxWords }).join(' ');
const workloads = [
  { name: `long paragraph (${args.paragraph} sentences in one text)`, texts: [paragraphText] },
  { name: `batch of ${args.batch} sentences`, texts: germanSentences(Number(args.batch), { from: 100, maxWords }) },
];

console.log(`model ${modelFile}: d ${config.d_model}, ${config.encoder_layers}+${config.decoder_layers} layers, vocabulary ${config.vocab_size}; ` +
  `wasm ${args.variant} ${threads} thread(s) on ${cpus().length} cores (load ${loadavg()[0].toFixed(1)}); ` +
  (withGpu ? `WebGPU: ${adapter.vendor || '?'} ${adapter.architecture || ''} ${adapter.description || ''} ` +
    `(${runtime.useF16Weights ? 'f16' : 'f32'} weights uploaded in ${uploadMs.toFixed(0)} ms, ${(runtime.counters.uploadedBytes / 2 ** 20).toFixed(1)} MiB); ` : 'no WebGPU rows; ') +
  `beam ${options.beam}, max length ${options.maxLength || 'ratio 2'}`);
const rows = [];
for (const w of workloads) {
  for (const name of Object.keys(RUNNERS)) {
    const row = await measure(name, w.texts);
    row.workload = w.name;
    rows.push(row);
  }
  const wasmTokens = rows.find((r) => r.workload === w.name && r.runner === 'wasm translate()').tokens;
  for (const r of rows.filter((x) => x.workload === w.name)) {
    r.sentences_differing_from_wasm = r.tokens.filter((t, i) => t !== wasmTokens[i]).length;
  }
}

const fmt = (v, d = 1) => (v === undefined ? '' : v.toFixed(d));
const head = ['workload', 'runner', 'sent', 'tokens', 'ms', 'sent/s', 'tok/s', 'vs wasm', 'subm/sent', 'readb/sent', 'KiB read/sent',
  'GPU wait ms', 'wasm next() ms', 'computeOnCpu ms', 'copy-in ms', 'differ'];
const table = rows.map((r) => {
  const base = rows.find((x) => x.workload === r.workload && x.runner === 'wasm translate()');
  const t = r.time_ms ?? {};
  return [r.workload, r.runner, String(r.sentences), String(r.target_tokens), fmt(r.ms, 0), fmt(r.sentences_per_s, 2),
    fmt(r.tokens_per_s, 0), fmt(r.tokens_per_s / base.tokens_per_s, 2) + 'x', fmt(r.submissions_per_sentence, 2),
    fmt(r.readbacks_per_sentence, 2), fmt(r.read_kib_per_sentence, 0),
    t.encode !== undefined ? fmt(t.encode + t.project + t.projectCandidates, 0) : '', t.next !== undefined ? fmt(t.next, 0) : '',
    t.computeOnCpu !== undefined ? fmt(t.computeOnCpu, 0) : '',
    t.provideLogits !== undefined ? fmt(t.provideLogits + t.provideCandidates + t.provideEncoderOutput, 0) : '', String(r.sentences_differing_from_wasm)];
});
const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
const line = (r) => r.map((v, i) => (i < 2 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
console.log(line(head));
for (const r of table) console.log(line(r));
console.log('vs wasm: tokens/s against wasm translate() on the same workload in this run. GPU wait: time in ' +
  'WebGpuBackend.encode/project (submission to readback); wasm next(): decoder layers, log-softmax and search; ' +
  'computeOnCpu: encoder and output projection on wasm; ' +
  'copy-in: provideEncoderOutput/provideLogits/provideCandidates (JS -> wasm copy and checks). differ: sentences whose tokens differ from wasm translate().');
if (args.json) {
  writeFileSync(args.json, JSON.stringify({ model: modelFile, config, adapter, gpuF16Weights: runtime?.useF16Weights ?? null,
    threads, variant: args.variant, options,
    rows: rows.map(({ tokens, ...r }) => r) }, null, 2));
}
backend?.destroy();
translator.delete();
Module.PThread?.terminateAllThreads();
runtime?.destroy();
