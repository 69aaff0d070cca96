#!/usr/bin/env node
// Bergamot's wasm (npm @browsermt/bergamot-translator 0.4.9: Marian in wasm, single-threaded SIMD)
// as a peers row, on the same weights exported by `models/tfm export-marian` (tests/marian/ drives it).
//
//   node tests/bench/peers/bergamot.mjs --marian DIR --tfm MODEL.tfm --input FILE
//        [--precision float32|int8shiftAlphaAll] [--beam K] [--max-length-factor 2] [--mini-batch-words 4096]
//        [--warmup 4] [--shortlist LEX.s2t.bin] [--json RESULT.json]
//
// DIR holds model.bin (float32) or model.intgemm.alphas.bin (int8shiftAlphaAll) and the vocabularies.
// Timed ("seconds"): one translate request with all lines (Bergamot's BlockingService batches them
// itself, mini-batch-words source tokens per batch), after loading and a warm-up on the first lines;
// Bergamot's SentencePiece encode/decode are inside, as in tformer's bench. Output is text only:
// target tokens are counted afterwards by encoding each output with the model's target SentencePiece
// plus EOS (ids.py count), which equals the ids Marian produced unless a detokenized text re-encodes
// differently. Length rule: Marian stops at max-length-factor x the longest source (EOS included) of
// its batch and keeps that last token, where tformer allows floor(2 x the sentence's own length)
// tokens including a forced EOS (tests/marian/parity.mjs): at factor 2 the caps match for sentences
// of the batch's longest length, and Marian's are longer for shorter ones.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { BergamotNode, bergamotAvailable, bergamotConfig } from '../../marian/bergamot.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

export const MODEL_FILES = { float32: 'model.bin', int8shiftAlphaAll: 'model.intgemm.alphas.bin' };

function readBuffer(p) {
  const b = readFileSync(p);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

export function marianVocabs(dir) {
  return existsSync(join(dir, 'vocab.spm')) ? ['vocab.spm'] : ['srcvocab.spm', 'trgvocab.spm'];
}

async function main() {
  const { values: a } = parseArgs({ options: {
    marian: { type: 'string' }, tfm: { type: 'string' }, input: { type: 'string' },
    precision: { type: 'string', default: 'float32' }, beam: { type: 'string', default: '1' },
    'max-length-factor': { type: 'string', default: '2' }, 'mini-batch-words': { type: 'string', default: '4096' },
    warmup: { type: 'string', default: '4' }, json: { type: 'string' }, shortlist: { type: 'string' },
  } });
  if (!a.marian || !a.tfm || !a.input) throw new Error('usage: bergamot.mjs --marian DIR --tfm MODEL.tfm --input FILE [...]');
  if (!bergamotAvailable()) throw new Error('web/node_modules/@browsermt/bergamot-translator is missing');
  const file = MODEL_FILES[a.precision];
  if (!file) throw new Error(`--precision: float32 or int8shiftAlphaAll, not ${a.precision}`);
  const modelPath = join(a.marian, file);
  const texts = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l);
  const beam = Number(a.beam);

  let t0 = performance.now();
  const b = await BergamotNode.start();
  let out, seconds, loadMs;
  try {
    await b.load(readBuffer(modelPath), marianVocabs(a.marian).map((v) => readBuffer(join(a.marian, v))),
      bergamotConfig({ precision: a.precision, maxLengthFactor: Number(a['max-length-factor']), beamSize: beam,
        miniBatchWords: Number(a['mini-batch-words']) }), a.shortlist ? readBuffer(a.shortlist) : null);
    loadMs = performance.now() - t0;
    await b.translateBatch(texts.slice(0, Number(a.warmup)));  // model errors surface here
    t0 = performance.now();
    out = (await b.translateBatch(texts)).result;
    seconds = (performance.now() - t0) / 1000;
  } finally {
    await b.close();
  }
  const peak = process.resourceUsage().maxRSS / 1024;  // the worker thread's wasm memory is in this process

  const textsFile = `${a.json || join(a.marian, 'bergamot')}.texts.json`;
  writeFileSync(textsFile, JSON.stringify({ texts: out }));
  const counted = spawnSync(PYTHON, [join(here, 'ids.py'), 'count', a.tfm, textsFile], { encoding: 'utf8' });
  if (counted.status !== 0) throw new Error(`ids.py count: ${counted.stderr}`);
  const counts = JSON.parse(counted.stdout);
  const targetTokens = counts.reduce((n, c) => n + c, 0);
  const sentences = out.length;
  const result = {
    runner: `bergamot-${a.precision}`, engine: `bergamot-translator wasm ${b.version} (${a.precision}${a.shortlist ? ', shortlist' : ''})`,
    shortlist: a.shortlist ?? null,
    threads: 1, beam, max_length_factor: Number(a['max-length-factor']), mini_batch_words: Number(a['mini-batch-words']),
    lines: texts.length, sentences, target_tokens: targetTokens, target_tokens_counted: 'target SentencePiece of the output text + EOS',
    seconds, sentences_per_s: sentences / seconds, tokens_per_s: targetTokens / seconds, ms_per_sentence: (1000 * seconds) / sentences,
    load_ms: loadMs, peak_rss_mb: peak, model_bytes: statSync(modelPath).size,
    timed: "one translate request of all lines (Bergamot's own batching), incl. its SentencePiece encode/decode",
    texts: out,
  };
  if (a.json) writeFileSync(a.json, JSON.stringify(result));
  console.error(`${result.engine}: beam ${beam}: ${sentences} sentences in ${seconds.toFixed(3)} s, `
    + `${result.sentences_per_s.toFixed(1)} sentences/s, ${result.tokens_per_s.toFixed(0)} target tokens/s, peak ${peak.toFixed(0)} MB`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`bergamot.mjs: ${e.stack || e}${e.log ? `\n${e.log.join('\n')}` : ''}`);
    process.exit(1);
  });
}
