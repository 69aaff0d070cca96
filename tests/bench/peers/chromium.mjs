#!/usr/bin/env node
// Peers rows in headless Chromium (Debian's chromium, driven by npm playwright-core), where the
// wasm engines run as they do for users: tformer's npm package (threaded or relaxed-SIMD build,
// which node 20 cannot run) and onnxruntime-web's wasm build (SIMD + threads), on a
// cross-origin-isolated page served from this process.
//
//   node tests/bench/peers/chromium.mjs --engine tformer --variant relaxed|threaded --model MODEL.tfm
//        --input FILE [--threads N] [--beam K] [--max-length N] [--warmup all|N] [--json RESULT.json]
//   node tests/bench/peers/chromium.mjs --engine ort --onnx DIR --ids IDS.json [--threads N] [--beam K]
//        [--max-length N] [--batch-tokens 4096] [--warmup all|N] [--json RESULT.json]
//
// Timed as the node rows time them: tformer's Translator.translate() of the whole file (one line =
// one segment, SentencePiece inside, plus the messages to the package's Worker); ONNX Runtime's
// encoder + decoder-step graphs with the search of ort_search.mjs over pre-tokenized ids. Both
// after loading and a warm-up, by default one untimed pass over the whole file: Chromium compiles
// wasm with its baseline compiler first and optimizes hot functions later, and ONNX Runtime's
// took longer than 4 sentences to get there (100 lines, 1 thread: 552 target tokens/s after 4,
// 741 after 40). Peak memory is not measured here (a browser's processes are not the page's
// alone): peak_rss_mb is null.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { serveStatic } from '../../static_server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..', '..');
const requireWeb = createRequire(path.join(repo, 'web', 'package.json'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// ---- in the page ----

async function runTformer({ variant, threads, beam, maxLength, warmup, lines }) {
  const { Translator } = await import('/web/src/index.js');
  let t0 = performance.now();
  const t = await Translator.create({ model: '/model.tfm', variant, threads, cache: false });
  const loadMs = performance.now() - t0;
  const options = { beam, maxLength, splitSentences: false };
  await t.translate(lines.slice(0, warmup), options);
  t0 = performance.now();
  const results = await t.translate(lines, options);
  const seconds = (performance.now() - t0) / 1000;
  const info = t.info;
  t.dispose();
  const outputs = results.flatMap((r) => r.sentences.map((s) => ({ tokens: Array.from(s.tokens), score: s.score })));
  return { seconds, loadMs, outputs, engine: `tformer ${info.variant} build in Chromium (${info.kernels})`, variant: info.variant,
    threads: info.threads, warnings: info.warnings };
}

async function runOrt({ threads, beam, maxLength, batchTokens, warmup, sources }) {
  const ort = await import('/ort/ort.wasm.min.mjs');
  const { checkExport, createSessions, translateIds } = await import('/peers/ort_search.mjs');
  ort.env.logLevel = 'error';
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.proxy = false;  // as in node; its proxy Worker refuses the search's reused buffers
  let t0 = performance.now();
  const info = checkExport(await (await fetch('/onnx/tformer.json')).json(), '/onnx');
  const sessions = await createSessions(ort, '/onnx', info, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const loadMs = performance.now() - t0;
  const search = { beam, alpha: 1, maxLength, batchTokens };
  await translateIds(ort, sessions, info, sources.slice(0, warmup), search);
  t0 = performance.now();
  const hyps = await translateIds(ort, sessions, info, sources, search);
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, loadMs, outputs: hyps.map((h) => (h ? { tokens: h.tokens, score: h.score } : null)),
    engine: `onnxruntime-web ${ort.env.versions?.web ?? ''} in Chromium`.trim(), threads };
}

// ---- main ----

async function main() {
  const { values: a } = parseArgs({ options: {
    engine: { type: 'string' }, variant: { type: 'string', default: 'relaxed' }, model: { type: 'string' },
    input: { type: 'string' }, onnx: { type: 'string' }, ids: { type: 'string' }, threads: { type: 'string', default: '1' },
    beam: { type: 'string', default: '1' }, 'max-length': { type: 'string', default: '0' },
    'batch-tokens': { type: 'string', default: '4096' }, warmup: { type: 'string', default: 'all' }, json: { type: 'string' },
  } });
  const tformer = a.engine === 'tformer';
  if (!(tformer ? a.model && a.input : a.engine === 'ort' && a.onnx && a.ids))
    throw new Error('usage: chromium.mjs --engine tformer --model M.tfm --input FILE | --engine ort --onnx DIR --ids IDS.json [...]');
  const cfg = { threads: Number(a.threads), beam: Number(a.beam), maxLength: Number(a['max-length']),
    batchTokens: Number(a['batch-tokens']), warmup: a.warmup === 'all' ? Infinity : Number(a.warmup) };
  let routes, args, modelBytes;
  if (tformer) {
    const lines = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l);
    routes = { '/web/src/': path.join(repo, 'web', 'src'), '/web/dist/': path.join(repo, 'web', 'dist'), '/model.tfm': path.resolve(a.model) };
    args = { ...cfg, variant: a.variant, lines };
    modelBytes = statSync(a.model).size;
  } else {
    const info = JSON.parse(readFileSync(path.join(a.onnx, 'tformer.json'), 'utf8'));
    routes = { '/ort/': path.dirname(requireWeb.resolve('onnxruntime-web')), '/onnx/': path.resolve(a.onnx),
      '/peers/ort_search.mjs': path.join(here, 'ort_search.mjs') };
    args = { ...cfg, sources: JSON.parse(readFileSync(a.ids, 'utf8')).sources };
    modelBytes = ['encoder', 'decoder_step'].reduce((n, g) => n + statSync(path.join(a.onnx, info[g].file)).size, 0);
  }

  const { chromium } = requireWeb('playwright-core');
  const server = await serveStatic({ routes });
  const profile = mkdtempSync(path.join(tmpdir(), 'tformer-peers-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  let r;
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    r = await page.evaluate(tformer ? runTformer : runOrt, args);
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
  if (tformer && r.variant !== a.variant) throw new Error(`asked for the ${a.variant} build, got ${r.variant}: ${r.warnings.join(' ')}`);

  const done = r.outputs.filter(Boolean);
  const targetTokens = done.reduce((n, h) => n + h.tokens.length, 0);
  const result = {
    runner: tformer ? `tformer-chromium-${a.variant}` : 'ort-chromium', engine: r.engine,
    variant: tformer ? a.variant : undefined, threads: r.threads, beam: cfg.beam, max_length: cfg.maxLength,
    lines: r.outputs.length, sentences: done.length, target_tokens: targetTokens, seconds: r.seconds,
    sentences_per_s: done.length / r.seconds, tokens_per_s: targetTokens / r.seconds, ms_per_sentence: (1000 * r.seconds) / done.length,
    load_ms: r.loadMs, peak_rss_mb: null, model_bytes: modelBytes,
    timed: tformer ? 'Translator.translate over the whole file in Chromium (package Worker), incl. SentencePiece in wasm'
      : 'encoder + decoder-step graphs + search in JS over pre-tokenized ids in Chromium; no tokenization',
    outputs: r.outputs,
  };
  if (a.json) writeFileSync(a.json, JSON.stringify(result));
  console.error(`${result.engine}: ${result.threads} thread(s), beam ${result.beam}: ${done.length} sentences in ${r.seconds.toFixed(3)} s, ` +
    `${result.sentences_per_s.toFixed(1)} sentences/s, ${result.tokens_per_s.toFixed(0)} target tokens/s`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`chromium.mjs: ${e.stack || e}`);
    process.exit(1);
  });
}
