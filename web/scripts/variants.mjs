#!/usr/bin/env node
// Before the demo serves the registry: writes each shipped model's int8 variant from its f16 file
// (`models/tfm variants`: models/README.md, "Shipped variants"). It needs the model tools' Python
// (numpy); without it the registry simply lists the f16 files, so a failure here is a note, not an
// error.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Quick where they are written already (each is checked against its sha256 and kept); writing one
// quantizes 13 M parameters with numpy, seconds.
console.log('int8 variants of the shipped models (models/tfm variants: written where missing, checked against eval.json)...');
const started = Date.now();
const run = spawnSync(path.join(root, 'models', 'tfm'), ['variants'], { cwd: root, encoding: 'utf8' });
if (run.status === 0) {
  process.stdout.write(run.stdout);
  console.log(`int8 variants ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
} else {
  const why = (run.error?.message ?? run.stderr ?? '').trim().split('\n').pop();
  console.log(`int8 variants not written (${why}); the demo offers the f16 models only`);
}
