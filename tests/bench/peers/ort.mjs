#!/usr/bin/env node
// ONNX Runtime peer: translates pre-tokenized sentences with the graphs of `models/tfm export-onnx`.
//
//   node tests/bench/peers/ort.mjs --onnx DIR --ids IDS.json [--backend node|web] [--threads N]
//        [--beam K] [--max-length N] [--batch-tokens 4096] [--warmup 4] [--latency N]
//        [--json RESULT.json]
//
// --backend node: onnxruntime-node (native CPU provider); web: onnxruntime-web's wasm build (SIMD,
// threads through ort.env.wasm.numThreads) running inside node.
// Timed ("seconds"): the whole file through encoder + decoder-step graphs and the search in JS, after
// loading and a warm-up on the first sentences; token ids come in and go out (IDS.json from ids.py
// encode), so no tokenization is timed. The result JSON holds the output ids (ids.py decode -> text).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { checkExport, createSessions, translateIds } from './ort_search.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');

// The packages are web/'s dev dependencies; this script lives outside web/, so resolve from there.
export async function importOrt(backend) {
  const require = createRequire(join(repo, 'web', 'package.json'));
  if (backend === 'node') return import(pathToFileURL(require.resolve('onnxruntime-node')).href);
  if (backend === 'web') {
    // The ES module build for node (its "node"/"import" export), beside the CommonJS one.
    const cjs = require.resolve('onnxruntime-web');
    return import(pathToFileURL(join(dirname(cjs), 'ort.node.min.mjs')).href);
  }
  throw new Error(`unknown backend '${backend}' (node or web)`);
}

export function sessionOptions(ort, backend, threads) {
  if (backend === 'web') {
    ort.env.wasm.numThreads = threads;  // read once, when the wasm module starts
    ort.env.wasm.proxy = false;
    return { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  }
  return { executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all' };
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;  // KiB on Linux

async function main() {
  const { values: a } = parseArgs({ options: {
    onnx: { type: 'string' }, ids: { type: 'string' }, backend: { type: 'string', default: 'node' },
    threads: { type: 'string', default: '1' }, beam: { type: 'string', default: '1' },
    'max-length': { type: 'string', default: '0' }, 'batch-tokens': { type: 'string', default: '4096' },
    warmup: { type: 'string', default: '4' }, latency: { type: 'string', default: '0' },
    'length-penalty': { type: 'string', default: '1' }, json: { type: 'string' },
  } });
  if (!a.onnx || !a.ids) throw new Error('usage: ort.mjs --onnx DIR --ids IDS.json [--backend node|web] ...');
  const threads = Number(a.threads), beam = Number(a.beam);
  const search = { beam, alpha: Number(a['length-penalty']), maxLength: Number(a['max-length']),
    batchTokens: Number(a['batch-tokens']) };
  const { sources } = JSON.parse(readFileSync(a.ids, 'utf8'));

  const ort = await importOrt(a.backend);
  ort.env.logLevel = 'error';
  let t0 = performance.now();
  const info = checkExport(JSON.parse(readFileSync(join(a.onnx, 'tformer.json'), 'utf8')), a.onnx);
  const sessions = await createSessions(ort, a.onnx, info, sessionOptions(ort, a.backend, threads));
  const loadMs = performance.now() - t0;

  await translateIds(ort, sessions, info, sources.slice(0, Number(a.warmup)), search);

  t0 = performance.now();
  const outputs = await translateIds(ort, sessions, info, sources, search);
  const seconds = (performance.now() - t0) / 1000;
  const done = outputs.filter(Boolean);
  const targetTokens = done.reduce((n, h) => n + h.tokens.length, 0);

  const latencies = [];
  for (const s of sources.slice(0, Number(a.latency))) {
    const t = performance.now();
    await translateIds(ort, sessions, info, [s], search);
    latencies.push(performance.now() - t);
  }
  latencies.sort((x, y) => x - y);

  const modelBytes = ['encoder', 'decoder_step'].reduce((n, g) => n + statSync(join(a.onnx, info[g].file)).size, 0);
  const result = {
    runner: a.backend === 'web' ? 'ort-web' : 'ort-node',
    engine: `onnxruntime-${a.backend} ${ort.env.versions?.[a.backend] ?? ''}`.trim(),
    threads, beam, max_length: search.maxLength, batch_tokens: search.batchTokens,
    lines: sources.length, sentences: done.length, target_tokens: targetTokens, seconds,
    sentences_per_s: done.length / seconds, tokens_per_s: targetTokens / seconds,
    ms_per_sentence: (1000 * seconds) / done.length,
    latency_median_ms: latencies.length ? latencies[Math.floor(latencies.length / 2)] : null,
    load_ms: loadMs, peak_rss_mb: peakRssMb(), model_bytes: modelBytes,
    timed: 'encoder + decoder-step graphs + search in JS over pre-tokenized ids; no tokenization',
    outputs: outputs.map((h) => (h ? { tokens: h.tokens, score: h.score } : null)),
  };
  if (a.json) writeFileSync(a.json, JSON.stringify(result));
  console.error(`${result.engine}: ${threads} thread(s), beam ${beam}: ${done.length} sentences in ${seconds.toFixed(3)} s, `
    + `${result.sentences_per_s.toFixed(1)} sentences/s, ${result.tokens_per_s.toFixed(0)} target tokens/s, `
    + `peak ${result.peak_rss_mb.toFixed(0)} MB`);
  // onnxruntime-web's worker threads keep node alive.
  process.exit(0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`ort.mjs: ${e.stack || e}`);
    process.exit(1);
  });
}
