#!/usr/bin/env node
// Writes the model registry (src/registry.js describes the format) from the models present:
// every models/<name>/model.tfm, with its languages from the model's own metadata, its size and
// sha256. While no trained model is there, the test fixtures (tests/fixtures/*/model.tfm: tiny
// random models, garbage translations) are listed instead, marked as test models.
//
//   node scripts/registry.mjs [--out FILE] [--fixtures auto|always|never]
// The default FILE is web/demo/registry.json (git-ignored; `npm run demo` serves a fresh one
// without writing it). URLs are relative to FILE's folder.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const defaultOut = path.join(repoRoot, 'web', 'demo', 'registry.json');

// The JSON header of a .tfm file (models/FORMAT.md): magic, version, flags, u64 length, JSON.
export function readTfmHeader(file) {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(24);
    readSync(fd, head, 0, 24, 0);
    if (head.toString('latin1', 0, 8) !== 'TFMODEL\0') throw new Error(`${file} is not a .tfm model (bad magic)`);
    const length = Number(head.readBigUInt64LE(16));
    if (length > 64 << 20) throw new Error(`${file}: header length ${length} is absurd`);
    const json = Buffer.alloc(length);
    readSync(fd, json, 0, length, 24);
    return JSON.parse(json.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

function sha256File(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function modelDirs(parent) {
  if (!existsSync(parent)) return [];
  return readdirSync(parent, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(parent, d.name, 'model.tfm')))
    .map((d) => path.join(parent, d.name))
    .sort();
}

function entry(dir, outDir, { test }) {
  const file = path.join(dir, 'model.tfm');
  const header = readTfmHeader(file);
  const meta = header.metadata ?? {};
  const id = meta.name ?? path.basename(dir);
  // The trained models name their languages; the fixtures were made with German input.
  const from = meta.source_language ?? (test ? 'de' : null);
  const to = meta.target_language ?? (test ? 'en' : null);
  if (!from || !to) throw new Error(`${file}: the metadata names no source_language/target_language`);
  return {
    id,
    from,
    to,
    label: test ? `test model ${id} (random weights: garbage output)` : `${id} (${from} -> ${to})`,
    test,
    url: path.relative(outDir, file).split(path.sep).join('/'),
    size: statSync(file).size,
    sha256: sha256File(file),
    ...(existsSync(path.join(dir, 'README.md')) ? { readme: path.relative(outDir, path.join(dir, 'README.md')).split(path.sep).join('/') } : {}),
    config: { d_model: header.config?.d_model, encoder_layers: header.config?.encoder_layers,
              decoder_layers: header.config?.decoder_layers, vocab_size: header.config?.vocab_size },
  };
}

/**
 * @param {{out?: string, fixtures?: 'auto'|'always'|'never', root?: string}} options
 * @returns {{registry: object, skipped: string[]}} the registry, and why models were left out
 */
export function buildRegistry({ out = defaultOut, fixtures = 'auto', root = repoRoot } = {}) {
  if (!['auto', 'always', 'never'].includes(fixtures)) throw new Error(`--fixtures must be auto, always or never (got ${fixtures})`);
  const outDir = path.dirname(path.resolve(out));
  const skipped = [];
  const entries = (dirs, test) => dirs.flatMap((d) => {
    try {
      return [entry(d, outDir, { test })];
    } catch (e) {
      skipped.push(e.message);  // one unreadable model does not take the others down
      return [];
    }
  });
  const models = entries(modelDirs(path.join(root, 'models')), false);
  if (fixtures === 'always' || (fixtures === 'auto' && models.length === 0)) {
    models.push(...entries(modelDirs(path.join(root, 'tests', 'fixtures')), true));
  }
  return { registry: { format: 'tformer-registry', version: 1, models }, skipped };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
  const out = path.resolve(opt('--out', defaultOut));
  const { registry, skipped } = buildRegistry({ out, fixtures: opt('--fixtures', 'auto') });
  writeFileSync(out, JSON.stringify(registry, null, 2) + '\n');
  console.log(`${path.relative(process.cwd(), out)}: ${registry.models.length} models`);
  for (const why of skipped) console.log(`  left out: ${why}`);
  for (const m of registry.models) console.log(`  ${m.id}  ${m.from}->${m.to}  ${m.size} bytes  ${m.sha256.slice(0, 16)}...  ${m.url}`);
}
