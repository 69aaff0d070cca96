#!/usr/bin/env node
// tformer's wasm build as a peers row: one variant, one thread count, one beam, in this process.
//
//   node tests/bench/peers/tformer_wasm.mjs --model MODEL.tfm --input FILE
//        [--variant mt|mtr|st] [--threads N] [--beam K] [--max-length N] [--warmup 4] [--profile]
//        [--no-shortlist] [--latency N] [--json RESULT.json]
//
// --variant mt: the threaded module (SIMD + pthreads; --threads 1 or more); st: the single-threaded
// one (--threads must be 1); mtr: the threaded module with relaxed SIMD (what the npm package picks
// where relaxed SIMD validates: node 22+, Chrome 114+). Modules come from build-wasm/wasm, mtr from
// build-wasm-relaxed/wasm (or all from $TFORMER_WASM_DIR).
// Timed ("seconds"), as `tformer bench` times it: Translator.translate() of the whole file (one line
// = one segment, splitSentences false), after loading the model and a warm-up on the first 4 lines;
// SentencePiece encode/decode inside the module are timed, as natively. The result JSON has the
// common peers fields and the output ids (tokens, score) for the token-for-token checks.
// --profile: also profile_ms, the timed call's split per phase from the engine's own timers
// (Module.profileEnable/profileTake, the phases of `tformer bench --profile`), plus 'rest'.
// --no-shortlist: score the whole vocabulary even where the model has a lexical shortlist.
// --latency N: also translate the first N lines one request each, as `tformer bench` does for its
// latency line (median and p90 ms per request).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { loadVariant, wasmDirOf } from '../../wasm/load_module.mjs';

export function readLines(file) {
  return readFileSync(file, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l);
}

// Runs one configuration in this process; returns the result object (with outputs).
export async function benchWasm({ model, input, variant = 'mt', threads = 1, beam = 1, maxLength = 0, warmup = 4, profile = false,
  shortlist = true, latency = 0 }) {
  if (variant === 'st' && threads !== 1) throw new Error('the st variant runs one thread only');
  const lines = readLines(input);
  if (!lines.length) throw new Error(`${input}: no non-empty lines`);
  // The plain model, as the peers compute it: passthrough and the repetition guard off.
  const options = { beam, maxLength, splitSentences: false, maxInputChars: 0, passthrough: false, repetitionGuard: false, shortlist };

  let t0 = performance.now();
  const M = await loadVariant(variant);
  const moduleMs = performance.now() - t0;
  t0 = performance.now();
  const translator = new M.Translator(new Uint8Array(readFileSync(model)), threads);
  const loadMs = performance.now() - t0;
  const info = translator.info();

  translator.translate(lines.slice(0, warmup), options);
  M.profileTake();  // drops what the warm-up counted
  M.profileEnable(profile);
  t0 = performance.now();
  const results = translator.translate(lines, options);
  const seconds = (performance.now() - t0) / 1000;
  M.profileEnable(false);
  let profileMs;
  if (profile) {
    profileMs = M.profileTake();
    profileMs.rest = 1000 * seconds - Object.values(profileMs).reduce((a, b) => a + b, 0);
  }

  let latencyMs;
  if (latency > 0) {
    const each = lines.slice(0, latency).map((line) => {
      const start = performance.now();
      translator.translate([line], options);
      return performance.now() - start;
    }).sort((x, y) => x - y);
    latencyMs = { requests: each.length, median: each[Math.floor(each.length / 2)], p90: each[Math.min(each.length - 1, Math.floor(each.length * 9 / 10))] };
  }

  const outputs = [];
  let targetTokens = 0;
  for (const r of results)
    for (const s of r.sentences) {
      targetTokens += s.tokens.length;
      outputs.push({ tokens: Array.from(s.tokens), score: s.score });
    }
  translator.delete();
  M.PThread?.terminateAllThreads();  // lets node exit
  const sentences = outputs.length;
  return {
    runner: `tformer-wasm-${variant}`, engine: `tformer wasm ${variant} (${info.kernels})`,
    variant, threads: info.threads ?? threads, beam, max_length: maxLength, lines: lines.length, sentences,
    target_tokens: targetTokens, seconds, sentences_per_s: sentences / seconds, tokens_per_s: targetTokens / seconds,
    ms_per_sentence: (1000 * seconds) / sentences, load_ms: loadMs, module_ms: moduleMs,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024, model_bytes: statSync(model).size,
    wasm_bytes: statSync(`${wasmDirOf(variant)}/tformer-${variant}.wasm`).size,
    timed: 'Translator.translate over the whole file in node, incl. SentencePiece encode/decode in wasm',
    shortlist, ...(profileMs ? { profile_ms: profileMs } : {}), ...(latencyMs ? { latency_ms: latencyMs } : {}),
    outputs,
  };
}

async function main() {
  const { values: a } = parseArgs({ options: {
    model: { type: 'string' }, input: { type: 'string' }, variant: { type: 'string', default: 'mt' },
    threads: { type: 'string', default: '1' }, beam: { type: 'string', default: '1' },
    'max-length': { type: 'string', default: '0' }, warmup: { type: 'string', default: '4' }, json: { type: 'string' },
    profile: { type: 'boolean', default: false }, 'no-shortlist': { type: 'boolean', default: false },
    latency: { type: 'string', default: '0' },
  } });
  if (!a.model || !a.input) throw new Error('usage: tformer_wasm.mjs --model MODEL.tfm --input FILE [--variant mt|mtr|st] [--threads N] ...');
  const r = await benchWasm({ model: a.model, input: a.input, variant: a.variant, threads: Number(a.threads),
    beam: Number(a.beam), maxLength: Number(a['max-length']), warmup: Number(a.warmup), profile: a.profile,
    shortlist: !a['no-shortlist'], latency: Number(a.latency) });
  if (a.json) writeFileSync(a.json, JSON.stringify(r));
  console.error(`${r.engine}: ${r.threads} thread(s), beam ${r.beam}: ${r.sentences} sentences in ${r.seconds.toFixed(3)} s, `
    + `${r.sentences_per_s.toFixed(1)} sentences/s, ${r.tokens_per_s.toFixed(0)} target tokens/s, peak ${r.peak_rss_mb.toFixed(0)} MB`);
  process.exit(0);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`tformer_wasm.mjs: ${e.stack || e}`);
    process.exit(1);
  });
}
