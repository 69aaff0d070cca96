// Module.Catalog and Translator.translateThrough (wasm/bindings/catalog.cc, translator.cc) in both
// wasm variants, against the local catalogue in Firefox's format (make_catalog.py, server.py):
// the engine's rules choose the files, fetch brings them, unpack checks and decompresses them with
// libzstd built for wasm, and the pair translates token for token as the same Marian folder loaded
// directly; a pivot pair as its two folders one after the other, also step by step (beginThrough),
// where a stream hands out each sentence as soon as its second step ended. The checks refuse a wrong hash,
// a cut download and zstd bombs in wasm as natively.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { loadVariant, options } from '../wasm/load_module.mjs';
import { startLocalCatalog } from './local_catalog.mjs';

const SENTENCES = ['Bonjour tout le monde.', 'Un chien joue dans le parc. Deux femmes lisent.', 'Pourquoi?'];
let catalog, made, url;
const modules = {};

before(async () => {
  catalog = await startLocalCatalog();
  ({ made, url } = catalog);
});

after(async () => {
  for (const m of Object.values(modules)) m.PThread?.terminateAllThreads();
  await catalog?.close();
});

async function text(u) {
  const r = await fetch(u);
  assert.equal(r.status, 200, u);
  return r.text();
}

async function catalogOf(M, opts = {}) {
  const urls = M.catalogUrls(url);
  const base = M.catalogAttachmentsBase(await text(urls.server));
  return { catalog: new M.Catalog(await text(urls.records), opts), base };
}

// A step's files fetched and made ready by the engine's checks.
async function fetchStep({ catalog, base }, step) {
  const files = [];
  for (const f of step.files) {
    const r = await fetch(base + f.location);
    if (r.status !== 200) throw new Error(`HTTP ${r.status} for ${f.name}`);
    files.push({ name: f.name, bytes: catalog.unpack(f.id, new Uint8Array(await r.arrayBuffer())) });
  }
  return files;
}

function folderFiles(name) {
  const dir = path.join(made, 'folders', name);
  return readdirSync(dir).map((n) => ({ name: n, bytes: new Uint8Array(readFileSync(path.join(dir, n))) }));
}

function tokensOf(results) {
  return results.map((r) => r.sentences.map((s) => [...s.tokens]));
}

for (const variant of ['st', 'mt']) {
  test(`${variant}: the catalogue's pairs, and a direct pair token-identical to its folder`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const c = await catalogOf(M);
    const pairs = c.catalog.pairs().map((p) => `${p.source}-${p.target}-${p.pivot ? 'pivot' : 'direct'}`);
    for (const p of ['fr-en-direct', 'en-de-direct', 'fr-de-pivot']) assert.ok(pairs.includes(p), pairs.join(' '));
    const plan = c.catalog.plan('fr', 'en');
    assert.equal(plan.steps[0].version, '1.0');  // not Nightly's 1.1a1
    assert.deepEqual(plan.steps[0].files.map((f) => f.fileType), ['model', 'vocab', 'lex']);
    const fetched = new M.Translator(M.importMarian(await fetchStep(c, plan.steps[0]), {}).tfm, 1);
    const direct = new M.Translator(M.importMarian(folderFiles('fren'), {}).tfm, 1);
    const o = options({ returnScores: true });
    assert.deepEqual(tokensOf(fetched.translate(SENTENCES, o)), tokensOf(direct.translate(SENTENCES, o)));
    fetched.delete();
    direct.delete();
    c.catalog.delete();
    const nightly = await catalogOf(M, { channel: 'nightly' });
    assert.equal(nightly.catalog.plan('fr', 'en').steps[0].version, '1.1a1');
    nightly.catalog.delete();
  });

  test(`${variant}: a pivot pair through English, token-identical to its two folders one after the other`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const c = await catalogOf(M);
    const plan = c.catalog.plan('fr', 'de');
    assert.equal(plan.pivot, true);
    assert.deepEqual(plan.steps.map((s) => `${s.source}-${s.target}`), ['fr-en', 'en-de']);
    const a = new M.Translator(M.importMarian(await fetchStep(c, plan.steps[0]), {}).tfm, 1);
    const b = new M.Translator(M.importMarian(await fetchStep(c, plan.steps[1]), {}).tfm, 1);
    const o = options({ returnAlignment: true });
    const pivot = a.translateThrough(b, SENTENCES, o);
    // The reference: each sentence of the first model through the second on its own.
    const fr = new M.Translator(M.importMarian(folderFiles('fren'), {}).tfm, 1);
    const en = new M.Translator(M.importMarian(folderFiles('ende'), {}).tfm, 1);
    const firstStep = fr.translate(SENTENCES, options());
    for (let i = 0; i < SENTENCES.length; i++) {
      const sentences = firstStep[i].sentences.map((s) => s.text);
      const expected = en.translate(sentences, options({ splitSentences: false }));
      assert.deepEqual(pivot[i].sentences.map((s) => [...s.tokens]), expected.map((e) => [...e.sentences[0].tokens]));
      assert.equal(pivot[i].text, expected.map((e) => e.text).join(' '));
      // The sentence keeps its French source; its alignment is [German tokens x French tokens], rows summing to 1.
      for (const [k, s] of pivot[i].sentences.entries()) {
        assert.equal(s.source, firstStep[i].sentences[k].source);
        assert.equal(s.alignment.length, s.tokens.length * s.sourceTokens.length);
        for (let r = 0; r < s.tokens.length; r++) {
          const row = s.alignment.slice(r * s.sourceTokens.length, (r + 1) * s.sourceTokens.length);
          assert.ok(Math.abs(row.reduce((x, y) => x + y, 0) - 1) < 1e-3);
        }
      }
    }
    for (const t of [a, b, fr, en, c.catalog]) t.delete();
  });

  test(`${variant}: a pivot pair step by step (beginThrough): each sentence out when its second step ends`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const c = await catalogOf(M);
    const plan = c.catalog.plan('fr', 'de');
    const a = new M.Translator(M.importMarian(await fetchStep(c, plan.steps[0]), {}).tfm, 1);
    const b = new M.Translator(M.importMarian(await fetchStep(c, plan.steps[1]), {}).tfm, 1);
    // Six sentences in three texts, the shortest first: it ends while the first model still works.
    const texts = ['Pourquoi? Un chien joue dans le parc avec une balle rouge. Deux femmes lisent.',
      'Bonjour tout le monde.\n\nUn homme fait du vélo dans la rue.', 'Merci.'];
    const o = options({ returnAlignment: true });
    const whole = a.translateThrough(b, texts, o);
    const drive = (stream) => {
      const session = a.beginThrough(b, texts, o, stream);
      const events = [];    // 'encode 0', 'project 1', ..., 'out N' in the order they came
      const out = [];
      for (let need = session.next(); ; need = session.next()) {
        for (const done of need.completed ?? []) {
          out.push(done);
          events.push(`out ${done.segment}`);
        }
        if (need.kind === 'done') break;
        events.push(`${need.kind} ${need.step}`);
        session.computeOnCpu();
      }
      const results = session.results();
      session.delete();
      return { events, out, results };
    };
    const streamed = drive(true);
    assert.deepEqual(tokensOf(streamed.results), tokensOf(whole));
    const sentences = whole.flatMap((r) => r.sentences);
    assert.equal(sentences.length, 6);
    // Every sentence once, in input order, as translateThrough() gives it, joined as its text.
    assert.deepEqual(streamed.out.map((d) => d.segment), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(streamed.out.map((d) => [...d.sentence.tokens]), sentences.map((s) => [...s.tokens]));
    assert.deepEqual(streamed.out.map((d) => d.sentence.alignment.length), sentences.map((s) => s.alignment.length));
    const joined = texts.map(() => '');
    for (const d of streamed.out) joined[d.paragraph] += d.separator + d.sentence.text;
    assert.deepEqual(joined, whole.map((r) => r.text));
    // Counted, not timed: the first sentence came out before the second model's last encode
    // request, and while the first model was still translating; the second model took the
    // sentences in several requests, and each sentence came out in an event of its own.
    const firstOut = streamed.events.indexOf('out 0');
    assert.ok(firstOut >= 0 && firstOut < streamed.events.lastIndexOf('encode 1'), streamed.events.join(', '));
    assert.ok(streamed.events.slice(firstOut).includes('project 0'), streamed.events.join(', '));
    assert.ok(streamed.events.filter((e) => e === 'encode 1').length >= 3, streamed.events.join(', '));
    // Not streamed: the first model, then one request of every sentence through the second.
    const batched = drive(false);
    assert.deepEqual(tokensOf(batched.results), tokensOf(whole));
    assert.equal(batched.events.filter((e) => e === 'encode 1').length, 1);
    assert.ok(batched.events.lastIndexOf('project 0') < batched.events.indexOf('encode 1'));
    assert.throws(() => a.beginThrough(b, ['\ud800'], o, true), (e) => e.call === 'beginThrough');
    for (const t of [a, b, c.catalog]) t.delete();
  });

  test(`${variant}: wrong hash, cut download, zstd bombs and a wrong decompressedHash are refused while unpacking`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const c = await catalogOf(M);
    const expect = { xa: /does not match its sha256/, xc: /truncated: \d+ of \d+ bytes/, xd: /decompresses to more than the \d+ bytes/,
      xe: /decompresses to \d+ bytes, more than/, xf: /does not match its decompressedHash/ };
    for (const [lang, message] of Object.entries(expect)) {
      const model = c.catalog.plan(lang, 'en').steps[0].files[0];
      const r = await fetch(c.base + model.location);
      // The server cuts xc short: what arrived (all that fetch could read) goes to unpack.
      let bytes;
      try {
        bytes = new Uint8Array(await r.arrayBuffer());
      } catch {
        bytes = new Uint8Array(0);
      }
      assert.throws(() => c.catalog.unpack(model.id, bytes), (e) => {
        assert.equal(e.call, 'unpack');
        assert.equal(e.code, 'download');
        assert.match(e.detail, lang === 'xc' && bytes.length === 0 ? /truncated: 0 of/ : message);
        return true;
      });
    }
    assert.throws(() => c.catalog.unpack('no-such-record', new Uint8Array(1)), /no record/);
    assert.throws(() => c.catalog.plan('fr', 'xx'), (e) => e.code === 'invalid_catalog' && /cannot translate fr to xx/.test(e.message));
    assert.throws(() => new M.Catalog('{"data": 3}', {}), (e) => e.code === 'invalid_catalog');
    assert.throws(() => new M.Catalog('{"data": []}', { channel: 'aurora' }), (e) => e.code === 'invalid_options');
    c.catalog.delete();
  });
}
