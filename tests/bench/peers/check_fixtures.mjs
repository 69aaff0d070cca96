#!/usr/bin/env node
// Checks the ONNX export and the ONNX Runtime search against the PyTorch golden data of every
// fixture model (tests/fixtures/*/golden.json): encoder output within 1e-4, greedy and beam-4
// tokens equal and scores within 1e-4, with onnxruntime-node and onnxruntime-web alike.
//
//   node tests/bench/peers/check_fixtures.mjs [--backends node,web]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { importOrt, sessionOptions } from './ort.mjs';
import { checkExport, createSessions, maxTargetLength, searchBatch } from './ort_search.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const fixtures = join(repo, 'tests', 'fixtures');
const TOLERANCE = 1e-4;

function exportFixture(name, out) {
  const r = spawnSync('/usr/bin/python3', [join(repo, 'models', 'tfm'), 'export-onnx', join(fixtures, name, 'model.tfm'), '-o', out],
    { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`export of ${name} failed:\n${r.stderr}`);
}

function goldenArray(bin, ref) {
  const n = ref.shape.reduce((a, b) => a * b, 1);
  return new Float32Array(bin.buffer.slice(bin.byteOffset + ref.offset, bin.byteOffset + ref.offset + 4 * n));
}

async function checkFixture(ort, backend, name, dir) {
  const golden = JSON.parse(readFileSync(join(fixtures, name, 'golden.json'), 'utf8'));
  const bin = readFileSync(join(fixtures, name, 'golden.bin'));
  const info = checkExport(JSON.parse(readFileSync(join(dir, 'tformer.json'), 'utf8')), dir);
  const sessions = await createSessions(ort, dir, info, sessionOptions(ort, backend, 1));
  const failures = [];
  for (const [i, s] of golden.sentences.entries()) {
    const S = s.source_ids.length;
    const int64 = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, S]);
    const enc = await sessions.encoder.run({ input_ids: int64(s.source_ids), attention_mask: int64(s.source_ids.map(() => 1)) });
    const want = goldenArray(bin, s.encoder_output), got = enc.encoder_hidden_states.data;
    const diff = want.reduce((m, w, k) => Math.max(m, Math.abs(w - got[k])), 0);
    if (!(diff <= TOLERANCE)) failures.push(`sentence ${i}: encoder output differs by ${diff}`);
    const maxLen = maxTargetLength(info.config, S);
    if (maxLen !== s.max_length) failures.push(`sentence ${i}: max length ${maxLen}, golden ${s.max_length}`);
    for (const [beam, expected] of [[1, s.greedy], [4, s.beam[0]]]) {
      const [h] = await searchBatch(ort, sessions, info, [s.source_ids], [maxLen], { beam, alpha: golden.length_penalty });
      if (JSON.stringify(h.tokens) !== JSON.stringify(expected.tokens))
        failures.push(`sentence ${i} beam ${beam}: tokens ${h.tokens} != golden ${expected.tokens}`);
      else if (!(Math.abs(h.score - expected.score) <= TOLERANCE))
        failures.push(`sentence ${i} beam ${beam}: score ${h.score} != golden ${expected.score}`);
    }
  }
  return { sentences: golden.sentences.length, failures };
}

async function main() {
  const { values: a } = parseArgs({ options: { backends: { type: 'string', default: 'node,web' } } });
  const work = mkdtempSync(join(tmpdir(), 'tformer-onnx-fixtures-'));
  let failed = 0;
  try {
    const names = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    for (const name of names) exportFixture(name, join(work, name));
    for (const backend of a.backends.split(',')) {
      const ort = await importOrt(backend);
      ort.env.logLevel = 'error';
      for (const name of names) {
        const { sentences, failures } = await checkFixture(ort, backend, name, join(work, name));
        console.log(`${failures.length ? 'FAIL' : 'ok  '} ${backend} ${name}: ${sentences} sentences, encoder output, greedy and beam 4`);
        for (const f of failures) console.log(`     ${f}`);
        failed += failures.length ? 1 : 0;
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`check_fixtures.mjs: ${e.stack || e}`);
  process.exit(1);
});
