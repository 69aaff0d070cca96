#!/usr/bin/env node
// The npm package on wasm and on WebGPU, through its public API (Translator.create + translate, the
// engine in its worker_threads Worker; npm `webgpu` in node, SwiftShader without a GPU):
//
//   node tests/webgpu/package_bench.mjs [--model FILE] [--paragraph N] [--batch N] [--max-length N]
//                                       [--threads N] [--warmup] [--json FILE]
//
// Workloads: one paragraph of N sentences (one input, split by the engine) and a batch of N
// sentences (an array). Per workload and backend: ms (translateMs of the engine; with --warmup the
// second of two runs, the first compiling pipelines and growing scratch), GPU submissions and readbacks per sentence, KiB read
// back per sentence, and whether the output differs from wasm's. Default model: the larger random
// model of the tests (build/webgpu-models/tiny-random.tfm, d 256, 16k vocabulary) if present, else
// the marian fixture. Kept small on purpose: SwiftShader is a CPU rasteriser, its times say
// nothing about a GPU; the counts and bytes carry over.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SWIFTSHADER_ICD } from './node_gpu.mjs';
import { fixtureFile, germanSentences, repoRoot } from './models.mjs';

if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    paragraph: { type: 'string', default: '4' },
    batch: { type: 'string', default: '8' },
    'max-length': { type: 'string', default: '12' },
    threads: { type: 'string', default: '1' },
    warmup: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const large = process.env.TFORMER_LARGE_MODEL || path.join(repoRoot, 'build', 'webgpu-models', 'tiny-random.tfm');
const modelFile = args.model ?? (existsSync(large) ? large : fixtureFile('marian', 'model.tfm'));
const maxLength = Number(args['max-length']);
const threads = Number(args.threads);

const { Translator } = await import(path.join(repoRoot, 'web', 'src', 'index.js'));
const bytes = new Uint8Array(readFileSync(modelFile));
const sentences = germanSentences(Math.max(Number(args.paragraph), Number(args.batch)), { maxWords: 12 });
const workloads = [
  { name: `paragraph, ${args.paragraph} sentences`, input: sentences.slice(0, Number(args.paragraph)).join(' ') },
  { name: `batch, ${args.batch} sentences`, input: sentences.slice(0, Number(args.batch)) },
];

const translators = {};
for (const backend of ['wasm', 'webgpu']) {
  translators[backend] = await Translator.create({ model: bytes, backend, threads, variant: threads > 1 ? 'threaded' : 'single' });
}
const info = translators.webgpu.info;
console.log(`model ${path.relative(repoRoot, modelFile)}: d ${info.model.config.d_model}, vocab ${info.model.config.vocab_size}, ` +
  `${info.model.config.encoder_layers} + ${info.model.config.decoder_layers} layers; ${threads} thread(s)`);
console.log(`webgpu: ${info.backend} (${info.backendReason}); adapter: ${info.adapter}; weights on the GPU ${(info.memory.gpuWeightBytes / 2 ** 20).toFixed(1)} MiB, ` +
  `wasm heap ${(info.memory.wasmBytes / 2 ** 20).toFixed(1)} MiB (wasm backend: ${(translators.wasm.info.memory.wasmBytes / 2 ** 20).toFixed(1)} MiB)`);
if (info.backend !== 'webgpu') console.log('WARNING: no WebGPU here, both rows run on wasm');

const rows = [];
for (const w of workloads) {
  const out = {};
  for (const backend of ['wasm', 'webgpu']) {
    const t = translators[backend];
    if (args.warmup) await t.translate(w.input, { maxLength });
    const r = await t.translate(w.input, { maxLength });
    const results = Array.isArray(r) ? r : [r];
    const count = results.reduce((n, x) => n + x.sentences.length, 0);
    const g = results[0].timings.gpu;
    out[backend] = { results, count, ms: results[0].timings.translateMs, gpu: g, ran: results[0].timings.backend };
  }
  const tokens = (x) => JSON.stringify(x.results.map((r) => r.sentences.map((s) => Array.from(s.tokens))));
  const differ = tokens(out.wasm) !== tokens(out.webgpu);
  for (const backend of ['wasm', 'webgpu']) {
    const o = out[backend];
    rows.push({
      workload: w.name, backend: o.ran, ms: Math.round(o.ms), sentences: o.count,
      submissionsPerSentence: o.gpu ? +(o.gpu.submissions / o.count).toFixed(2) : null,
      readbacksPerSentence: o.gpu ? +(o.gpu.readbacks / o.count).toFixed(2) : null,
      kibReadPerSentence: o.gpu ? +(o.gpu.readBytes / o.count / 1024).toFixed(1) : null,
      outputsDiffer: backend === 'webgpu' ? differ : null,
    });
  }
}
for (const t of Object.values(translators)) t.dispose();

const header = ['workload', 'backend', 'ms', 'submissions / sentence', 'readbacks / sentence', 'KiB read back / sentence', 'outputs differ from wasm'];
console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const r of rows) {
  const cell = (v) => (v === null ? '' : String(v));
  console.log(`| ${r.workload} | ${r.backend} | ${r.ms} | ${cell(r.submissionsPerSentence)} | ${cell(r.readbacksPerSentence)} | ${cell(r.kibReadPerSentence)} | ${r.outputsDiffer === null ? '' : r.outputsDiffer ? 'yes' : 'no'} |`);
}
if (args.json) writeFileSync(args.json, JSON.stringify({ model: modelFile, adapter: info.adapter, rows }, null, 2));
if (rows.some((r) => r.outputsDiffer)) process.exitCode = 1;
