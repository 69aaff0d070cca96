#!/usr/bin/env node
// Writes the model registry (src/registry.js describes the format) from the models present:
// every folder models/<name>/ with a model.tfm, under the folder's name, with its languages from
// the model's own metadata, and each of its files (model.tfm, model.int8.tfm) as a variant with
// size, sha256 and the greedy BLEU of the folder's eval.json; chooseDefault() picks the default. While no trained model is there, the test fixtures (tests/fixtures/*/model.tfm: tiny
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

// The JSON header of a .tfm file (docs/FORMAT.md): magic, version, flags, u64 length, JSON.
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

// What a model file's weights are: the exporter's metadata says so; older files are told by
// their tensors' dtypes (int8 with per-row scales, else f16, else f32).
function weightsOf(header) {
  if (typeof header.metadata?.weights === 'string') return header.metadata.weights;
  const dtypes = new Set((header.tensors ?? []).map((t) => t.dtype));
  return dtypes.has('i8') ? 'int8' : dtypes.has('f16') ? 'f16' : 'f32';
}

// models/<name>/eval.json (written with the models): {"rows": [{file, weights, set, search, bleu, chrf}]}.
function readEval(dir) {
  const file = path.join(dir, 'eval.json');
  if (!existsSync(file)) return [];
  const json = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(json?.rows)) throw new Error(`${file}: expected {"rows": [...]}`);
  return json.rows.filter((r) => typeof r?.file === 'string' && typeof r.set === 'string' && Number.isFinite(r.bleu));
}

/** Greedy BLEU per test set of one file of a model folder, from its eval.json rows. */
function greedyBleu(rows, file) {
  return Object.fromEntries(rows.filter((r) => r.file === file && r.search === 'greedy').map((r) => [r.set, r.bleu]));
}

/** How far int8's BLEU may fall below the f16 model's on any test set for int8 to be the default. */
export const INT8_MAX_BLEU_LOSS = 0.5;

/**
 * Which variant a model folder offers by default: the int8 one when, on every test set measured
 * greedily for both files, its BLEU is at most INT8_MAX_BLEU_LOSS below the full model's; the
 * full model (model.tfm) otherwise, and whenever there is no measurement to go by.
 * @param {{file: string, weights: string, bleu: Record<string, number>}[]} variants  model.tfm first
 * @returns {{file: string, reason: string}}
 */
export function chooseDefault(variants) {
  const full = variants[0];
  const int8 = variants.find((v) => v.weights === 'int8' && v !== full);
  if (!int8) return { file: full.file, reason: `the only variant is ${full.weights}` };
  const sets = Object.keys(int8.bleu).filter((s) => s in full.bleu).sort();
  if (!sets.length) return { file: full.file, reason: `no greedy BLEU of both ${int8.file} and ${full.file} on one test set (eval.json)` };
  const figures = sets.map((s) => `${s} ${int8.bleu[s]} vs ${full.bleu[s]}`).join(', ');
  const worse = sets.filter((s) => int8.bleu[s] < full.bleu[s] - INT8_MAX_BLEU_LOSS);
  if (worse.length) return { file: full.file, reason: `int8 loses more than ${INT8_MAX_BLEU_LOSS} BLEU on ${worse.join(', ')} (greedy: ${figures})` };
  return { file: int8.file, reason: `int8 is within ${INT8_MAX_BLEU_LOSS} BLEU of ${full.weights} on every test set (greedy: ${figures})` };
}

const relative = (from, file) => path.relative(from, file).split(path.sep).join('/');

// One entry per model folder: its id is the folder's name (what users see in the repository and
// the README), whatever the model's metadata calls it. The folder's files are its variants
// (model.tfm, model.int8.tfm, ...); the entry's own url/size/sha256 are the default variant's,
// so that an entry can be given to Translator.create as it is.
function entry(dir, outDir, { test }) {
  const file = path.join(dir, 'model.tfm');
  const header = readTfmHeader(file);
  const meta = header.metadata ?? {};
  const id = test ? `fixture-${path.basename(dir)}` : path.basename(dir);
  // The trained models name their languages; the fixtures were made with German input.
  const from = meta.source_language ?? (test ? 'de' : null);
  const to = meta.target_language ?? (test ? 'en' : null);
  if (!from || !to) throw new Error(`${file}: the metadata names no source_language/target_language`);
  const rows = test ? [] : readEval(dir);
  const files = ['model.tfm', ...readdirSync(dir).filter((f) => /^model\.[^/]+\.tfm$/.test(f)).sort()];
  const variants = files.map((name) => {
    const at = path.join(dir, name);
    const h = name === 'model.tfm' ? header : readTfmHeader(at);
    const row = rows.find((r) => r.file === name && typeof r.weights === 'string');
    return {
      file: name,
      weights: row?.weights ?? weightsOf(h),
      url: relative(outDir, at),
      size: statSync(at).size,
      sha256: sha256File(at),
      bleu: greedyBleu(rows, name),
    };
  });
  const choice = chooseDefault(variants);
  for (const v of variants) v.default = v.file === choice.file;
  variants.sort((a, b) => b.default - a.default);
  const chosen = variants[0];
  return {
    id,
    from,
    to,
    label: test ? `test model ${id} (random weights: garbage output)` : `${id} (${from} -> ${to})`,
    test,
    url: chosen.url,
    size: chosen.size,
    sha256: chosen.sha256,
    weights: chosen.weights,
    variants,
    defaultReason: choice.reason,
    ...(existsSync(path.join(dir, 'README.md')) ? { readme: relative(outDir, path.join(dir, 'README.md')) } : {}),
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
  for (const m of registry.models) {
    console.log(`  ${m.id}  ${m.from}->${m.to}  default ${m.weights}: ${m.defaultReason}`);
    for (const v of m.variants) console.log(`    ${v.weights.padEnd(5)} ${v.size} bytes  ${v.sha256.slice(0, 16)}...  ${v.url}`);
  }
}
