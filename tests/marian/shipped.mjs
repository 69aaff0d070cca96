#!/usr/bin/env node
// Parity of tformer with Bergamot's wasm on a trained model (the shipped models/<name>/model.tfm)
// over a test set: the model is exported to Marian (`models/tfm export-marian`), then both engines
// translate every line, greedy, float32, one sentence per request, at the same length cap (the
// primary comparison of parity.mjs: Bergamot with max-length-factor 1.5, tformer with
// --max-length ceil(1.5 W) + 1, W = source tokens incl. EOS), both with the model's lexical
// shortlist where it has one. Every difference is listed.
//
//   node tests/marian/shipped.mjs MODEL.tfm (--input FILE | --set NAME) [--lines N] [--work DIR]
//                                 [--json OUT] [--tformer build/tformer]
//
// --set NAME reads ../shared/data/deen/test/NAME.<the model's source language>, e.g. --set
// multi30k-test2016 for models/tiny.deen/model.tfm reads multi30k-test2016.de.
//
// Unlike parity.mjs this runs no PyTorch decode (too slow for whole test sets on a CPU);
// `models/tfm evaluate` checks tformer against PyTorch on the same sets.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';

import {readTfmHeader} from '../../web/scripts/registry.mjs';
import {BergamotNode, ROOT, bergamotConfig} from './bergamot.mjs';
import {readBuffer, tformerMatched} from './parity.mjs';

const MATCHED_FACTOR = 1.5;

function run(cmd, args, input) {
  const r = spawnSync(cmd, args, {input, encoding: 'utf8', maxBuffer: 256 << 20});
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

async function main() {
  const {values: a, positionals} = parseArgs({allowPositionals: true, options: {
    input: {type: 'string'}, set: {type: 'string'}, lines: {type: 'string', default: '0'}, work: {type: 'string'},
    json: {type: 'string'}, tformer: {type: 'string', default: path.join(ROOT, 'build', 'tformer')},
  }});
  const model = positionals[0];
  if (!model || !(a.input || a.set)) {
    console.error('usage: node tests/marian/shipped.mjs MODEL.tfm (--input FILE | --set NAME) [--lines N] [--work DIR] [--json OUT]');
    process.exit(2);
  }
  if (a.set) {
    const source = readTfmHeader(model).metadata?.source_language;
    if (!source) throw new Error(`${model}: the metadata names no source_language; use --input`);
    a.input = path.join(ROOT, '..', 'shared', 'data', 'deen', 'test', `${a.set}.${source}`);
  }
  const name = path.basename(path.dirname(path.resolve(model)));
  const work = a.work || path.join(ROOT, 'build', 'marian-shipped', name);
  const marianDir = path.join(work, 'marian');
  mkdirSync(work, {recursive: true});
  // The export is cached per model file (size + mtime): it takes a minute for a tiny-class model.
  const {size, mtimeMs} = statSync(model);
  const stamp = JSON.stringify({size, mtimeMs});
  const stampFile = path.join(work, 'export.stamp');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
    run('/usr/bin/python3', [path.join(ROOT, 'models', 'tfm'), 'export-marian', model, '-o', marianDir, '--format', 'bin']);
    writeFileSync(stampFile, stamp);
  }
  const vocabs = existsSync(path.join(marianDir, 'vocab.spm')) ? ['vocab.spm'] : ['srcvocab.spm', 'trgvocab.spm'];

  let texts = readFileSync(a.input, 'utf8').split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim());
  if (Number(a.lines) > 0) texts = texts.slice(0, Number(a.lines));
  const W = run('/usr/bin/python3', [path.join(ROOT, 'tests', 'marian', 'source_lengths.py'), model], texts.join('\n') + '\n')
    .trim().split('\n').map(Number);
  const sentences = texts.map((text, i) => ({text, W: W[i], matched_max_length: Math.ceil(MATCHED_FACTOR * W[i]) + 1}));

  let t0 = performance.now();
  const tf = tformerMatched(a.tformer, model, sentences);
  const tformerMs = performance.now() - t0;

  const b = await BergamotNode.start();
  let bg;
  try {
    // A model with a lexical shortlist: export-marian wrote it as lex.s2t.bin, and Bergamot gets it
    // as Firefox gives it (tformer reads it from the .tfm).
    const lex = path.join(marianDir, 'lex.s2t.bin');
    await b.load(readBuffer(path.join(marianDir, 'model.bin')), vocabs.map((v) => readBuffer(path.join(marianDir, v))),
                 bergamotConfig({precision: 'float32', maxLengthFactor: MATCHED_FACTOR}),
                 existsSync(lex) ? readBuffer(lex) : null);
    bg = await b.translate(texts);
  } finally {
    await b.close();
  }
  const differ = [];
  texts.forEach((t, i) => { if (bg.result[i] !== tf[i]) differ.push({i, source: t, bergamot: bg.result[i], tformer: tf[i]}); });
  const report = {model, input: a.input, sentences: texts.length, identical: texts.length - differ.length, differ,
                  bergamot_ms_per_sentence: bg.ms / texts.length, tformer_cli_ms_per_sentence: tformerMs / texts.length};
  console.log(`${name} ${path.basename(a.input)}: bergamot float32 = tformer f32 on ${report.identical}/${texts.length} `
              + `sentences (greedy, same cap); bergamot ${report.bergamot_ms_per_sentence.toFixed(1)} ms/sentence`);
  for (const d of differ) console.log(`  line ${d.i + 1}: ${d.source}\n    bergamot: ${d.bergamot}\n    tformer:  ${d.tformer}`);
  if (a.json) writeFileSync(a.json, JSON.stringify(report, null, 1));
  if (differ.length) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exit(1); });
