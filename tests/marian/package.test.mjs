// node --test tests/marian/package.test.mjs
//
// The npm package runs Marian model folders as downloaded (Translator.create({model: {files}})):
// the engine imports them in its Worker (wasm/bindings/marian_import.cc). For every variant
// tests/marian/make_models.py writes (float32 .bin, intgemm8 .bin with alphas; self-attention and
// SSRU decoders, post/pre-norm, relu/swish, tied and untied embeddings, separate vocabularies) and
// two OPUS-MT style folders (.npz, *.vocab.yml tables with shuffled ids, source/target.spm):
//   - float32: greedy translations equal Bergamot's wasm on the same files (at the same length
//     cap, as tests/marian/parity.mjs compares) and the PyTorch reference;
//   - every variant: token-identical to the package on the .tfm the native CLI's importer
//     (models/tfm import-marian) writes from the same files;
//   - a folder with a lexical shortlist (lex.*.s2t.bin): the package = the converted .tfm = Bergamot's
//     wasm given the same shortlist, one sentence per request;
//   - .gz copies (decompressed in JS with DecompressionStream) give the same;
//   - over http: each file checked against its sha256, kept in the cache (a second load downloads
//     nothing), progress per file;
//   - bad files (truncated or corrupted .bin, .npz, .yml, .gz; a missing vocabulary) are refused
//     with a ModelFormatError naming the problem, and the package stays usable.
// Models: package_models.mjs. Skips, saying why, when a prerequisite is missing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { deflateRawSync, gzipSync } from 'node:zlib';

import { BergamotNode, ROOT, bergamotAvailable, bergamotConfig } from './bergamot.mjs';
import { loadModels, readBuffer } from './parity.mjs';
import { MODELS, PACKAGE_MODELS, cannotMakeModels, ensurePackageModels } from './package_models.mjs';

const MATCHED_FACTOR = 1.5;  // Bergamot's max-length-factor at the matched cap (parity.mjs)
// Bergamot computes the plain model: passthrough and the repetition guard (on by default) off.
const PLAIN = { passthrough: false, repetitionGuard: false };

function missing() {
  if (!existsSync(path.join(ROOT, 'web', 'dist', 'tformer-mt.wasm'))) return 'web/dist is not built (npm run build in web/)';
  if (!bergamotAvailable()) return 'web/node_modules/@browsermt/bergamot-translator is missing (npm ci in web/)';
  return cannotMakeModels();
}

const reason = missing();
let pkg;
let entries = [];
let plans;
let work;
before(async () => {
  if (reason) return;
  entries = ensurePackageModels();
  plans = new Map(loadModels(MODELS).map((m) => [m.name, m]));
  pkg = await import(path.join(ROOT, 'web', 'src', 'index.js'));
  work = mkdtempSync(path.join(os.tmpdir(), 'tformer-marian-package-'));
});
after(() => { if (work) rmSync(work, { recursive: true, force: true }); });

// The files of a folder as paths (Node), every one of them: the importer picks what it reads.
function folderFiles(folder) {
  return readdirSync(folder).map((f) => path.join(folder, f));
}

async function withTranslator(model, body) {
  const t = await pkg.Translator.create({ model, threads: 1 });
  try {
    return await body(t);
  } finally {
    t.dispose();
  }
}

// Greedy, one sentence per text, each at its own cap (`caps[i]`, 0: the engine's default rule).
async function translateAll(t, texts, caps) {
  const out = new Array(texts.length);
  const groups = new Map();
  texts.forEach((text, i) => {
    if (!groups.has(caps[i])) groups.set(caps[i], []);
    groups.get(caps[i]).push(i);
  });
  for (const [cap, idx] of groups) {
    const results = await t.translate(idx.map((i) => texts[i]), { maxLength: cap, splitSentences: false, ...PLAIN });
    idx.forEach((i, j) => { out[i] = { text: results[j].text, tokens: Array.from(results[j].tokens) }; });
  }
  return out;
}

async function bergamot(folder, modelFile, vocabs, texts) {
  const b = await BergamotNode.start();
  try {
    await b.load(readBuffer(path.join(folder, modelFile)), vocabs.map((v) => readBuffer(path.join(folder, v))),
      bergamotConfig({ maxLengthFactor: MATCHED_FACTOR }));
    return (await b.translate(texts)).result;
  } finally {
    await b.close();
  }
}

function firstDifference(a, b, what) {
  const i = a.findIndex((x, k) => JSON.stringify(x) !== JSON.stringify(b[k]));
  return i < 0 ? null : `${what}: sentence ${i} differs:\n  ${JSON.stringify(a[i])}\n  ${JSON.stringify(b[i])}`;
}

test('Firefox-style folders (float32 .bin, intgemm8 .bin): the package on the files = the natively converted .tfm; float32 = Bergamot and PyTorch',
  { skip: reason || false, timeout: 3600e3 }, async (t) => {
    for (const e of entries.filter((x) => x.kind === 'f32' || x.kind === 'int8')) {
      await t.test(`${e.name} ${e.kind}`, async () => {
        const plan = plans.get(e.name).plan;
        const texts = plan.sentences.map((s) => s.text);
        const caps = plan.sentences.map((s) => s.matched_max_length);
        const direct = await withTranslator({ files: folderFiles(e.folder), modelFile: e.model_file }, async (tr) => {
          const info = tr.info.model;
          assert.equal(info.marian.modelFile, e.model_file);
          assert.equal(typeof info.marian.summary, 'object');
          assert.ok(info.files.some((f) => f.name === e.model_file && f.source === 'file'));
          return translateAll(tr, texts, caps);
        });
        const converted = await withTranslator(e.tfm, (tr) => translateAll(tr, texts, caps));
        assert.equal(firstDifference(direct, converted, 'direct load vs the natively converted .tfm'), null);
        if (e.kind === 'f32') {
          const reference = plan.sentences.map((s) => s.matched.text);
          assert.equal(firstDifference(direct.map((r) => r.text), reference, 'direct load vs PyTorch'), null);
          const b = await bergamot(e.folder, e.model_file, plan.vocabs, texts);
          assert.equal(firstDifference(direct.map((r) => r.text), b, "direct load vs Bergamot's wasm"), null);
        }
      });
    }
  });

test("a Firefox-style folder with its lexical shortlist: the package = the converted .tfm = Bergamot's wasm with the same shortlist, one sentence per request",
  { skip: reason || false, timeout: 600e3 }, async () => {
    const e = entries.find((x) => x.kind === 'shortlist');
    const plan = plans.get(e.plan_of).plan;
    const texts = plan.sentences.map((s) => s.text);
    const caps = plan.sentences.map((s) => s.matched_max_length);
    const lex = readdirSync(e.folder).find((f) => f.startsWith('lex.'));
    const direct = await withTranslator({ files: folderFiles(e.folder) }, async (tr) => {
      assert.equal(tr.info.model.marian.summary.shortlist?.file, lex);
      const withList = await translateAll(tr, texts, caps);
      // The option shortlist: false scores every word: the model's own output without the list.
      const all = await tr.translate(texts[0], { maxLength: caps[0], splitSentences: false, shortlist: false, ...PLAIN });
      assert.equal(all.text, plan.sentences[0].matched.text);
      return withList;
    });
    assert.ok(direct.some((r, i) => r.text !== plan.sentences[i].matched.text), 'the shortlist changes some outputs of this random model');
    const converted = await withTranslator(e.tfm, (tr) => translateAll(tr, texts, caps));
    assert.equal(firstDifference(direct, converted, 'direct load vs the natively converted .tfm'), null);
    const b = await BergamotNode.start();
    try {
      await b.load(readBuffer(path.join(e.folder, 'model.bin')), [readBuffer(path.join(e.folder, 'vocab.spm'))],
        bergamotConfig({ maxLengthFactor: MATCHED_FACTOR }), readBuffer(path.join(e.folder, lex)));
      const out = (await b.translate(texts)).result;
      assert.equal(firstDifference(direct.map((r) => r.text), out, "direct load vs Bergamot's wasm, both with the shortlist"), null);
    } finally {
      await b.close();
    }
  });

test('OPUS-MT style folders (.npz, .vocab.yml tables, source/target.spm): the package = the natively converted .tfm = PyTorch',
  { skip: reason || false, timeout: 600e3 }, async () => {
    for (const e of entries.filter((x) => x.kind === 'opus')) {
      const caps = e.sentences.map(() => 0);
      const direct = await withTranslator({ files: folderFiles(e.folder) }, async (tr) => {
        assert.equal(tr.info.model.metadata.marian?.vocabs?.length, 2);
        return translateAll(tr, e.sentences, caps);
      });
      const converted = await withTranslator(e.tfm, (tr) => translateAll(tr, e.sentences, caps));
      assert.equal(firstDifference(direct, converted, `${e.name}: direct vs converted`), null);
      assert.deepEqual(direct.map((r) => r.text), e.reference, `${e.name}: direct vs PyTorch`);
    }
  });

test('.gz copies are decompressed in JS: the same translations; every way of giving a file', { skip: reason || false, timeout: 600e3 }, async () => {
  const e = entries.find((x) => x.kind === 'f32' && x.name === 'd64-ssru-pre-relu');
  const plan = plans.get(e.name).plan;
  const texts = plan.sentences.slice(0, 8).map((s) => s.text);
  const caps = texts.map(() => 0);
  const plain = await withTranslator({ files: [path.join(e.folder, 'model.bin'), path.join(e.folder, 'vocab.spm')] },
    (tr) => translateAll(tr, texts, caps));
  const gzDir = mkdtempSync(path.join(work, 'gz-'));
  const modelGz = gzipSync(readFileSync(path.join(e.folder, 'model.bin')));
  writeFileSync(path.join(gzDir, 'model.deen.bin.gz'), modelGz);
  const vocab = readFileSync(path.join(e.folder, 'vocab.spm'));
  const events = [];
  const files = [
    path.join(gzDir, 'model.deen.bin.gz'),                                    // a path
    { name: 'vocab.deen.spm.gz', data: new Uint8Array(gzipSync(vocab)) },      // {name, data}
  ];
  const fromGz = await pkg.Translator.create({ model: { files }, threads: 1, onProgress: (ev) => events.push(ev) });
  try {
    assert.deepEqual(fromGz.info.model.files.map((f) => [f.name, f.gzip]), [['model.deen.bin', true], ['vocab.deen.spm', true]]);
    assert.ok(events.some((ev) => ev.file === 0 && ev.files === 2), 'progress events name the file');
    assert.deepEqual(await translateAll(fromGz, texts, caps), plain);
  } finally {
    fromGz.dispose();
  }
  // A File (Blob with a name) and an ArrayBuffer in {name, data}; sha256 checked per {url} entry.
  const sha = (await import('node:crypto')).createHash('sha256').update(modelGz).digest('hex');
  const viaFile = await withTranslator({
    files: [{ url: path.join(gzDir, 'model.deen.bin.gz'), sha256: sha }, new File([vocab], 'vocab.deen.spm')],
  }, (tr) => translateAll(tr, texts, caps));
  assert.deepEqual(viaFile, plain);
  await assert.rejects(pkg.Translator.create({ model: { files: [{ url: path.join(gzDir, 'model.deen.bin.gz'), sha256: '0'.repeat(64) },
    { name: 'vocab.spm', data: vocab.buffer.slice(vocab.byteOffset, vocab.byteOffset + vocab.byteLength) }] } }),
  (err) => err.name === 'ModelLoadError' && /sha256 mismatch/.test(err.message));
});

// A YAML document whose aliases stand for 10^depth nodes.
function aliasBomb(depth) {
  let y = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i <= depth; i++) y += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
  return y;
}

// A zip whose directory lists two entries at one local header (a decompression bomb's trick).
function sharedNpz() {
  const body = deflateRawSync(Buffer.alloc(1 << 20));
  const u16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
  const crc = 0;  // never checked: the directory is refused first
  const local = Buffer.concat([u32(0x04034b50), u16(20), u16(0), u16(8), u32(0), u32(crc), u32(body.length), u32(1 << 20),
    u16(5), u16(0), Buffer.from('a.npy'), body]);
  const entry = (name) => Buffer.concat([u32(0x02014b50), u16(20), u16(20), u16(0), u16(8), u32(0), u32(crc), u32(body.length),
    u32(1 << 20), u16(name.length), u16(0), u16(0), u16(0), u16(0), u32(0), u32(0), Buffer.from(name)]);
  const dir = Buffer.concat([entry('a.npy'), entry('b.npy')]);
  return Buffer.concat([local, dir, u32(0x06054b50), u32(0), u16(2), u16(2), u32(dir.length), u32(local.length), u16(0)]);
}

test('bad files: a clear ModelFormatError (or TypeError for a bad option), no crash; the package stays usable',
  { skip: reason || false, timeout: 600e3 }, async () => {
    const e = entries.find((x) => x.kind === 'f32' && x.name === 'd64-std-post-relu');
    const opus = entries.find((x) => x.kind === 'opus' && x.name === 'opus-post');
    const bin = readFileSync(path.join(e.folder, 'model.bin'));
    const vocab = readFileSync(path.join(e.folder, 'vocab.spm'));
    const npzName = readdirSync(opus.folder).find((f) => f.endsWith('.npz'));
    const opusFiles = Object.fromEntries(readdirSync(opus.folder).map((f) => [f, readFileSync(path.join(opus.folder, f))]));
    const opusWith = (name, data) => Object.entries({ ...opusFiles, [name]: data })
      .filter(([, d]) => d !== null).map(([n, d]) => ({ name: n, data: d }));
    const corruptGz = gzipSync(bin);
    corruptGz.fill(0x55, corruptGz.length >> 1, (corruptGz.length >> 1) + 64);
    const cases = [
      ['truncated .bin', [{ name: 'model.bin', data: bin.subarray(0, bin.length >> 1) }, { name: 'vocab.spm', data: vocab }], /model\.bin/],
      ['a .bin of garbage', [{ name: 'model.bin', data: new Uint8Array(4096).fill(7) }, { name: 'vocab.spm', data: vocab }], /model\.bin/],
      ['missing vocabulary', [{ name: 'model.bin', data: bin }], /vocab/i],
      ['a garbage vocabulary', [{ name: 'model.bin', data: bin }, { name: 'vocab.spm', data: new Uint8Array(100).fill(3) }], /vocab\.spm/],
      ['truncated .gz', [{ name: 'model.bin.gz', data: gzipSync(bin).subarray(0, 5000) }, { name: 'vocab.spm', data: vocab }], /model\.bin\.gz.*gzip/],
      ['corrupted .gz', [{ name: 'model.bin.gz', data: corruptGz }, { name: 'vocab.spm', data: vocab }], /model\.bin\.gz.*gzip/],
      ['not gzip at all', [{ name: 'model.bin.gz', data: bin }, { name: 'vocab.spm', data: vocab }], /model\.bin\.gz.*gzip/],
      ['truncated .npz', opusWith(npzName, opusFiles[npzName].subarray(0, opusFiles[npzName].length - 3000)), /npz/],
      ['bad decoder.yml', opusWith('decoder.yml', Buffer.from('models: [unclosed\n  - {')), /decoder\.yml/],
      ['bad vocab.yml', opusWith('opus.spm32k-spm32k.vocab.yml', Buffer.from('"</s>": 0\n"<unk>": [1\n')), /vocab\.yml/],
      ['missing vocab.yml', opusWith('opus.spm32k-spm32k.vocab.yml', null), /vocab/i],
      ['no model file', [{ name: 'vocab.spm', data: vocab }, { name: 'README.md', data: Buffer.from('hi') }], /model/i],
      // Hostile files: the wasm importer refuses them as the native one does.
      ['an alias bomb in decoder.yml', opusWith('decoder.yml', Buffer.from(aliasBomb(9))), /decoder\.yml: line 2: a YAML alias/],
      ['a vocabulary whose normalisation table points outside itself',
        [{ name: 'model.bin', data: bin }, { name: 'vocab.spm', data: readFileSync(path.join(PACKAGE_MODELS, 'hostile', 'crafted.vocab.spm')) }],
        /vocab\.spm: the SentencePiece model's normalisation table \(precompiled_charsmap\) is corrupt/],
      ['an .npz whose entries share one body', [{ name: 'model.npz', data: sharedNpz() }, { name: 'vocab.spm', data: vocab }],
        /model\.npz: not a readable \.npz file \(entries a\.npy and b\.npy share their data/],
    ];
    for (const [what, files, pattern] of cases) {
      await assert.rejects(pkg.Translator.create({ model: { files }, threads: 1 }), (err) => {
        assert.equal(err.name, 'ModelFormatError', `${what}: ${err.name}: ${err.message}`);
        assert.match(err.message, pattern, `${what}: ${err.message}`);
        return true;
      }, what);
    }
    const bad = [
      [{ files: [] }, /non-empty array/],
      [{ files: [new Uint8Array(4)] }, /without a name/],
      [{ files: [{ name: 'a.bin', data: 'text' }] }, /model file 0 must be/],
      [{ files: ['x.bin'], weights: 'f8' }, /'model\.weights' must be one of/],
      [{ files: ['x.bin'], unknown: 1 }, /unknown key 'unknown'/],
      [{ files: [{ name: 'a.spm', data: vocab }, { name: 'a.spm.gz', data: gzipSync(vocab) }] }, /two files named 'a\.spm'/],
      [{ files: ['http://127.0.0.1:9/models/deen/'] }, /model file 0 has no file name/],
      [{ files: [{ name: 'deen/', data: vocab }] }, /model file 0 has no file name/],
      [{ files: [{ url: 'x.bin', sha256: 'xyz' }] }, /model file 0: 'sha256' must be 64 hexadecimal digits \(got "xyz"\)/],
      [{ files: [{ url: 'x.bin', size: -1 }] }, /model file 0: 'size' must be a whole number of bytes/],
    ];
    for (const [model, pattern] of bad) {
      await assert.rejects(pkg.Translator.create({ model }), (err) => err instanceof TypeError && pattern.test(err.message), JSON.stringify(Object.keys(model)));
    }
    await assert.rejects(pkg.Translator.create({ model: { files: ['x.bin'] }, sha256: '0'.repeat(64) }),
      (err) => err instanceof TypeError && /'sha256' and 'size' per file/.test(err.message));
    // A File that cannot be read (its disk copy went away): the error names it.
    class Unreadable extends File {
      arrayBuffer() { return Promise.reject(new DOMException('the file could not be read', 'NotReadableError')); }
    }
    await assert.rejects(pkg.Translator.create({ model: { files: [new Unreadable([bin], 'model.bin'), { name: 'vocab.spm', data: vocab }] } }),
      (err) => err.name === 'ModelLoadError' && /model file model\.bin could not be read: the file could not be read/.test(err.message));
    // Still usable: a good folder translates.
    await withTranslator({ files: [{ name: 'model.bin', data: bin }, { name: 'vocab.spm', data: vocab }] }, async (tr) => {
      const r = await tr.translate('Ein Hund.');
      assert.equal(typeof r.text, 'string');
    });
  });

test('a folder over http: sha256 per file, the Cache API (a second load reads the cache), progress per file',
  { skip: reason || false, timeout: 600e3 }, async () => {
    const { MemoryCache } = await import('../web/helpers.mjs');
    const e = entries.find((x) => x.kind === 'int8' && x.name === 'd64-std-pre-swish');
    const served = {
      '/deen/model.deen.intgemm.alphas.bin.gz': gzipSync(readFileSync(path.join(e.folder, 'model.intgemm.alphas.bin'))),
      '/deen/vocab.deen.spm': readFileSync(path.join(e.folder, 'vocab.spm')),
    };
    const requests = [];
    const server = http.createServer((req, res) => {
      requests.push(req.url);
      const body = served[req.url];
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length }).end(body);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${server.address().port}`;
    const hash = (b) => createHash('sha256').update(b).digest('hex');
    const files = Object.entries(served).map(([p, b]) => ({ url: base + p, sha256: hash(b), size: b.length }));
    const cache = new MemoryCache();
    try {
      const events = [];
      const texts = ['Ein Hund läuft.', 'Zwei Kinder spielen im Park.'];
      const first = await withTranslator({ files }, async (tr) => tr.translate(texts));
      const t = await pkg.Translator.create({ model: { files }, cache, threads: 1, onProgress: (ev) => events.push(ev) });
      try {
        assert.deepEqual(t.info.model.files.map((f) => [f.name, f.source, f.gzip]),
          [['model.deen.intgemm.alphas.bin', 'network', true], ['vocab.deen.spm', 'network', false]]);
        assert.ok(events.some((ev) => ev.phase === 'download' && ev.file === 0 && ev.files === 2 && ev.name === 'model.deen.intgemm.alphas.bin.gz'));
        assert.ok(events.some((ev) => ev.phase === 'download' && ev.file === 1 && ev.loaded === served['/deen/vocab.deen.spm'].length));
        assert.deepEqual((await t.translate(texts)).map((r) => r.text), first.map((r) => r.text));
      } finally {
        t.dispose();
      }
      requests.length = 0;
      const again = await pkg.Translator.create({ model: { files }, cache, threads: 1 });
      try {
        assert.deepEqual(requests, [], 'the second load downloads nothing');
        assert.equal(again.info.load.fromCache, true);
        assert.deepEqual(again.info.model.files.map((f) => f.source), ['cache', 'cache']);
        assert.deepEqual((await again.translate(texts)).map((r) => r.text), first.map((r) => r.text));
      } finally {
        again.dispose();
      }
      // A file that changed on the server: refused by its sha256, named.
      served['/deen/vocab.deen.spm'] = Buffer.concat([served['/deen/vocab.deen.spm'], Buffer.from('x')]);
      await assert.rejects(pkg.Translator.create({ model: { files: files.map(({ size, ...f }) => f) }, cache: false, threads: 1 }),
        (err) => err.name === 'ModelLoadError' && /vocab\.deen\.spm: sha256 mismatch/.test(err.message));
      await assert.rejects(pkg.Translator.create({ model: { files: [base + '/deen/missing.bin'] }, cache: false }),
        (err) => err.name === 'ModelLoadError' && /HTTP 404/.test(err.message));
    } finally {
      server.close();
    }
  });
