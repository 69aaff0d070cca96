#!/usr/bin/env node
// Parity of tformer with Bergamot's wasm (Marian) on the same weights.
//
//   node tests/marian/parity.mjs MODELS_DIR [--browser] [--int8] [--json OUT] [--tformer PATH]
//
// MODELS_DIR comes from tests/marian/make_models.py: per model a .tfm, the same model exported to
// Marian (.bin float32, intgemm8 .bin) and plan.json (sentences, source lengths, PyTorch reference
// outputs). One sentence per request on both sides, greedy.
//
// Length rules differ (marian-dev src/translator/beam_search.cpp): Marian stops a hypothesis after
// max-length-factor x (longest source in the batch, EOS included) tokens and keeps that last token
// whatever it is; tformer allows floor(2 x source length) tokens including an EOS it forces at the
// last step (models/tformer/decode.py). So the primary comparison runs both at the same cap:
// Bergamot with max-length-factor 1.5, tformer with --max-length ceil(1.5 W) + 1, which leaves both
// ceil(1.5 W) free tokens. The secondary comparison runs both with their defaults (Bergamot 2.0)
// and explains every difference: a sentence that reaches the limit gets one more token from Marian.
import {spawnSync} from 'node:child_process';
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import http from 'node:http';
import {createRequire} from 'node:module';
import path from 'node:path';

import {BergamotNode, GLUE, PACKAGE, ROOT, WASM, bergamotConfig} from './bergamot.mjs';

const MATCHED_FACTOR = 1.5;

export function readBuffer(p) {
  const b = readFileSync(p);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

export function loadModels(dir) {
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  return index.models.map((name) => {
    const folder = path.join(dir, name);
    const plan = JSON.parse(readFileSync(path.join(folder, 'plan.json'), 'utf8'));
    return {name, folder, plan};
  });
}

// tformer CLI over lines; `maxLength` 0 = its default rule. Lines are translated as one batch;
// each sentence keeps its own length limit (per-sentence limits, unlike Marian's batch-wide one).
// The plain model, as Bergamot computes it: no passthrough, no repetition guard.
export function tformerTranslate(tformer, model, lines, maxLength = 0) {
  const args = ['translate', '-m', model, '--no-split', '--threads', '1', '--no-passthrough', '--no-repetition-guard'];
  if (maxLength) args.push('--max-length', String(maxLength));
  const r = spawnSync(tformer, args, {input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 64 << 20});
  if (r.status !== 0) throw new Error(`tformer failed (${r.status}): ${r.stderr}`);
  const out = r.stdout.split('\n');
  out.pop();
  if (out.length !== lines.length) throw new Error(`tformer returned ${out.length} lines for ${lines.length}`);
  return out;
}

export function tformerMatched(tformer, model, sentences) {
  // Group by cap so that each CLI call uses one --max-length.
  const out = new Array(sentences.length);
  const groups = new Map();
  sentences.forEach((s, i) => {
    const k = s.matched_max_length;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(i);
  });
  for (const [k, idx] of groups) {
    const res = tformerTranslate(tformer, model, idx.map((i) => sentences[i].text), k);
    idx.forEach((i, j) => { out[i] = res[j]; });
  }
  return out;
}

function compare(a, b) {
  const diffs = [];
  a.forEach((x, i) => { if (x !== b[i]) diffs.push(i); });
  return diffs;
}

async function bergamotNode(m, file, precision, factor) {
  const b = await BergamotNode.start();
  try {
    const dir = path.join(m.folder, m.plan.marian_dir);
    await b.load(readBuffer(path.join(dir, file)), m.plan.vocabs.map((v) => readBuffer(path.join(dir, v))),
                 bergamotConfig({precision, maxLengthFactor: factor}));
    const {result, ms} = await b.translate(m.plan.sentences.map((s) => s.text));
    return {texts: result, ms};
  } finally {
    await b.close();
  }
}

// ---- browser ---------------------------------------------------------------------------------------
const TYPES = {'.js': 'text/javascript', '.cjs': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json'};

function serve(roots) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    for (const [prefix, dir] of Object.entries(roots)) {
      if (!url.startsWith(prefix)) continue;
      const file = path.normalize(path.join(dir, url.slice(prefix.length)));
      if (!file.startsWith(dir) || !existsSync(file)) break;
      res.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream'});
      res.end(readFileSync(file));
      return;
    }
    res.writeHead(404);
    res.end('not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function openBrowser(modelsDir) {
  // The JS dev dependencies live with the npm package (web/package.json).
  const {chromium} = createRequire(path.join(ROOT, 'web', 'package.json'))('playwright-core');
  const server = await serve({
    '/harness/': path.join(ROOT, 'tests', 'marian'),
    '/bergamot/': path.join(PACKAGE, 'worker'),
    '/models/': path.resolve(modelsDir),
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage();
  const base = `http://127.0.0.1:${server.address().port}`;
  await page.goto(`${base}/harness/browser.html`);
  await page.waitForFunction(() => typeof window.runBergamot === 'function');
  return {
    version: await browser.version(),
    async run(m, file, precision, factor) {
      const rel = `/models/${m.name}/${m.plan.marian_dir}`;
      return page.evaluate((job) => window.runBergamot(job), {
        glue: '/bergamot/bergamot-translator-worker.js', wasm: '/bergamot/bergamot-translator-worker.wasm',
        model: `${rel}/${file}`, vocabs: m.plan.vocabs.map((v) => `${rel}/${v}`),
        config: bergamotConfig({precision, maxLengthFactor: factor}), texts: m.plan.sentences.map((s) => s.text),
      });
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

// ---- one model -------------------------------------------------------------------------------------
export async function checkModel(m, {tformer, browser = null, int8 = false}) {
  const s = m.plan.sentences;
  const tfm = path.join(m.folder, m.plan.model);
  const r = {name: m.name, sentences: s.length, limit_hits_default: s.filter((x) => x.ours.hit_limit).length,
             limit_hits_matched: s.filter((x) => x.matched.hit_limit).length};

  // Primary: same cap on both sides.
  const tfMatched = tformerMatched(tformer, tfm, s);
  const bgMatched = await bergamotNode(m, 'model.bin', 'float32', MATCHED_FACTOR);
  r.matched = {
    bergamot_vs_tformer: compare(bgMatched.texts, tfMatched),
    tformer_vs_pytorch: compare(tfMatched, s.map((x) => x.matched.text)),
    bergamot_vs_pytorch: compare(bgMatched.texts, s.map((x) => x.matched.text)),
    bergamot_ms_per_sentence: bgMatched.ms / s.length,
  };
  r.matched.examples = r.matched.bergamot_vs_tformer.slice(0, 5).map((i) => ({
    i, text: s[i].text, bergamot: bgMatched.texts[i], tformer: tfMatched[i]}));

  // Secondary: each with its own defaults; differences must be the length rule.
  const tfDefault = tformerTranslate(tformer, tfm, s.map((x) => x.text));
  const bgDefault = await bergamotNode(m, 'model.bin', 'float32', 2.0);
  const diffs = compare(bgDefault.texts, tfDefault);
  const explained = diffs.filter((i) => {
    const x = s[i];
    const ours = x.ours.tokens, marian = x.marian.tokens;
    const prefix = ours.length >= 1 && ours.slice(0, -1).every((t, j) => t === marian[j]);
    return x.ours.hit_limit && prefix && bgDefault.texts[i] === x.marian.text && tfDefault[i] === x.ours.text;
  });
  r.defaults = {differ: diffs, explained_by_length_rule: explained,
                unexplained: diffs.filter((i) => !explained.includes(i))};

  if (browser) {
    const bm = await browser.run(m, 'model.bin', 'float32', MATCHED_FACTOR);
    const bd = await browser.run(m, 'model.bin', 'float32', 2.0);
    r.browser = {
      matched_vs_tformer: compare(bm.texts, tfMatched),
      matched_vs_node: compare(bm.texts, bgMatched.texts),
      defaults_vs_node: compare(bd.texts, bgDefault.texts),
      ms_per_sentence: bm.ms / s.length,
    };
  }

  if (int8 && m.plan.int8_model) {
    // Informational: int8 arithmetic differs (Bergamot quantises activations; tformer dequantises
    // the int8 weights to f32 at load), so identical output is not expected.
    const bg8 = await bergamotNode(m, m.plan.int8_model, 'int8shiftAlphaAll', MATCHED_FACTOR);
    const imported = path.join(m.folder, 'imported-int8.tfm');
    const py = spawnSync('/usr/bin/python3', [path.join(ROOT, 'models', 'tfm'), 'import-marian',
      path.join(m.folder, m.plan.marian_dir), '--model', path.join(m.folder, m.plan.marian_dir, m.plan.int8_model),
      '-o', imported], {encoding: 'utf8'});
    if (py.status !== 0) throw new Error(`import-marian failed: ${py.stderr}`);
    const tf8 = tformerMatched(tformer, imported, s);
    r.int8 = {
      bergamot_int8_vs_float: s.length - compare(bg8.texts, bgMatched.texts).length,
      tformer_int8_vs_float: s.length - compare(tf8, tfMatched).length,
      bergamot_int8_vs_tformer_int8: s.length - compare(bg8.texts, tf8).length,
      bergamot_ms_per_sentence: bg8.ms / s.length,
    };
  }
  return r;
}

export function summary(r) {
  const n = r.sentences;
  const ok = (d) => `${n - d.length}/${n}`;
  let line = `${r.name.padEnd(28)} matched cap: bergamot=tformer ${ok(r.matched.bergamot_vs_tformer)}, ` +
      `tformer=pytorch ${ok(r.matched.tformer_vs_pytorch)} (${r.limit_hits_matched} at the cap); defaults: ` +
      `${ok(r.defaults.differ)} equal, ${r.defaults.explained_by_length_rule.length} differ by the length rule, ` +
      `${r.defaults.unexplained.length} unexplained; bergamot ${r.matched.bergamot_ms_per_sentence.toFixed(1)} ms/sent`;
  if (r.browser) line += `; chromium=tformer ${ok(r.browser.matched_vs_tformer)}, chromium=node ${ok(r.browser.matched_vs_node)}`;
  if (r.int8) line += `; int8 (same as float): bergamot ${r.int8.bergamot_int8_vs_float}/${n}, tformer ${r.int8.tformer_int8_vs_float}/${n}, bergamot=tformer ${r.int8.bergamot_int8_vs_tformer_int8}/${n}`;
  return line;
}

async function main(argv) {
  const args = {dir: null, browser: false, int8: false, json: null, tformer: path.join(ROOT, 'build', 'tformer')};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--browser') args.browser = true;
    else if (a === '--int8') args.int8 = true;
    else if (a === '--json') args.json = argv[++i];
    else if (a === '--tformer') args.tformer = argv[++i];
    else if (!args.dir) args.dir = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!args.dir) {
    console.error('usage: node tests/marian/parity.mjs MODELS_DIR [--browser] [--int8] [--json OUT] [--tformer PATH]');
    process.exit(2);
  }
  for (const f of [args.tformer, GLUE, WASM]) if (!existsSync(f)) throw new Error(`missing ${f}`);
  const browser = args.browser ? await openBrowser(args.dir) : null;
  if (browser) console.log(`chromium ${browser.version}`);
  const results = [];
  try {
    for (const m of loadModels(args.dir)) {
      const r = await checkModel(m, {tformer: args.tformer, browser, int8: args.int8});
      results.push(r);
      console.log(summary(r));
    }
  } finally {
    if (browser) await browser.close();
  }
  if (args.json) writeFileSync(args.json, JSON.stringify(results, null, 1));
  const bad = results.filter((r) => r.matched.bergamot_vs_tformer.length || r.defaults.unexplained.length ||
      (r.browser && r.browser.matched_vs_tformer.length));
  if (bad.length) {
    console.log(`DIFFERENCES in ${bad.map((r) => r.name).join(', ')}`);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
}
