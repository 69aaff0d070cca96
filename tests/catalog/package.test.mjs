// The npm package's catalogue pairs (Translator.create({from, to, catalog}), Translator.pairs) in
// Node, against the local catalogue in Firefox's format (make_catalog.py, server.py): a direct pair
// and a pivot pair translate token for token as their Marian folders given as `model: {files}`
// (the pivot as the first folder's sentences through the second, one at a time); the download has
// one progress total; the files land in the CLI's cache layout and a cached pair starts with the
// server gone; online it follows its records (a changed hash or a newer release version replaces
// the cached files); failures are clear and leave nothing broken in the cache; hostile records
// (hostile.py) are refused naming the field, and nothing outside the cache folder is touched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = await import(path.join(ROOT, 'web', 'src', 'index.js'));
const { Translator } = pkg;
const SENTENCES = ['Bonjour tout le monde.', 'Un chien joue dans le parc. Deux femmes lisent.', 'Pourquoi?'];
const PLAIN = { passthrough: false, repetitionGuard: false };
let work, made, server, url;

function serve(catalog) {
  const child = spawn('/usr/bin/python3', [path.join(ROOT, 'tests', 'catalog', 'server.py'), catalog]);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'tformer-catalog-package-'));
  made = path.join(work, 'made');
  const r = spawnSync('/usr/bin/python3', [path.join(ROOT, 'tests', 'catalog', 'make_catalog.py'), made], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  ({ child: server, url } = await serve(path.join(made, 'catalog')));
});

after(() => {
  server?.kill();
  rmSync(work, { recursive: true, force: true });
});

const folder = (name) => ({ files: readdirSync(path.join(made, 'folders', name)).map((f) => path.join(made, 'folders', name, f)) });
const tokens = (results) => results.map((r) => r.sentences.map((s) => [...s.tokens]));
const cacheDir = (name) => path.join(work, name);

test('Translator.pairs lists direct and pivot pairs with architecture and size, downloading no model', async () => {
  const pairs = await Translator.pairs({ catalog: url, cache: cacheDir('pairs') });
  const find = (from, to) => pairs.find((p) => p.from === from && p.to === to);
  assert.deepEqual({ ...find('fr', 'en'), downloadBytes: 0 }, { from: 'fr', to: 'en', pivot: false, architecture: 'tiny', downloadBytes: 0 });
  assert.equal(find('fr', 'de').pivot, true);
  assert.equal(find('fr', 'de').architecture, 'tiny+base');
  assert.ok(find('fr', 'de').downloadBytes > find('fr', 'en').downloadBytes);
  await assert.rejects(Translator.pairs({ catalog: url, channel: 'aurora' }), /channel/);
});

test('a direct pair: token-identical to its folder; one progress total; cached in the CLI layout, then offline', async () => {
  const events = [];
  const cache = cacheDir('direct');
  const t = await Translator.create({ from: 'fr', to: 'en', catalog: url, cache, threads: 1, onProgress: (e) => events.push(e) });
  const ref = await Translator.create({ model: folder('fren'), threads: 1 });
  try {
    assert.deepEqual(tokens(await t.translate(SENTENCES, PLAIN)), tokens(await ref.translate(SENTENCES, PLAIN)));
    const downloads = events.filter((e) => e.phase === 'download');
    assert.ok(downloads.length >= 2);
    assert.ok(downloads.every((e) => e.total === downloads[0].total && e.pair === 'fr->en'));
    assert.equal(downloads.at(-1).loaded, downloads[0].total);
    assert.equal(t.info.model.catalog.steps[0].version, '1.0');
    assert.equal(t.info.model.source, 'catalog');
  } finally {
    t.dispose();
    ref.dispose();
  }
  const dir = readdirSync(cache).find((d) => d.startsWith('catalog-'));
  assert.deepEqual(readdirSync(path.join(cache, dir, 'fr-en', '1.0-tiny')).sort(),
    ['.tformer-version', 'lex.50.50.fren.s2t.bin', 'model.fren.intgemm.alphas.bin', 'vocab.fren.spm']);
  // The server gone: the cached pair still starts, with nothing downloaded.
  const { child, url: other } = await serve(path.join(made, 'catalog'));
  const c2 = cacheDir('offline');
  (await Translator.create({ from: 'fr', to: 'en', catalog: other, cache: c2, threads: 1 })).dispose();
  child.kill();
  await new Promise((r) => child.on('exit', r));
  const again = [];
  const t2 = await Translator.create({ from: 'fr', to: 'en', catalog: other, cache: c2, threads: 1, onProgress: (e) => again.push(e) });
  assert.equal(again.filter((e) => e.phase === 'download').length, 0);
  t2.dispose();
  await assert.rejects(Translator.create({ from: 'fr', to: 'en', catalog: other, cache: cacheDir('none'), threads: 1 }),
    (e) => e.name === 'ModelLoadError' && /no copy of this catalogue is cached/.test(e.message));
});

test('a pivot pair through English: token-identical to its two folders, sentence by sentence; streaming', async () => {
  const t = await Translator.create({ from: 'fr', to: 'de', catalog: url, cache: cacheDir('pivot'), threads: 1 });
  const fr = await Translator.create({ model: folder('fren'), threads: 1 });
  const en = await Translator.create({ model: folder('ende'), threads: 1 });
  try {
    assert.equal(t.info.model.catalog.pivot, true);
    const got = await t.translate(SENTENCES, PLAIN);
    const first = await fr.translate(SENTENCES, PLAIN);
    for (const [i, r] of first.entries()) {
      const second = await en.translate(r.sentences.map((s) => s.text), { ...PLAIN, splitSentences: false });
      assert.deepEqual(got[i].sentences.map((s) => [...s.tokens]), second.map((x) => [...x.sentences[0].tokens]));
      assert.equal(got[i].sentences[0].source, r.sentences[0].source);
    }
    const streamed = [];
    for await (const s of t.translateStream(SENTENCES, PLAIN)) streamed.push(s.text);
    assert.deepEqual(streamed, got.flatMap((r) => r.sentences.map((s) => s.text)));
    const html = await t.translate('<p>Bonjour <b>tout</b> le monde.</p>', { ...PLAIN, html: true });
    assert.match(html.text, /^<p>.*<\/p>$/);
  } finally {
    t.dispose();
    fr.dispose();
    en.dispose();
  }
});

test('a cached pair follows its records: a changed hash or a newer release version replaces the cached files; offline the cache works', async () => {
  const copy = path.join(work, 'changing');
  cpSync(path.join(made, 'catalog'), copy, { recursive: true });
  const { child, url: changing } = await serve(copy);
  const cache = cacheDir('changing');
  const records = path.join(copy, 'records.json');
  const translateWith = async (options) => {
    const events = [];
    const t = await Translator.create({ threads: 1, onProgress: (e) => events.push(e), ...options });
    try {
      return { tokens: tokens(await t.translate(SENTENCES, PLAIN)), downloads: events.filter((e) => e.phase === 'download').length,
        versions: t.info.model.catalog?.steps.map((s) => s.version) };
    } finally {
      t.dispose();
    }
  };
  const pair = { from: 'fr', to: 'en', catalog: changing, cache };
  const release = (await translateWith({ model: folder('fren') })).tokens;
  const nightly = (await translateWith({ model: folder('fren-nightly') })).tokens;
  assert.notDeepEqual(release, nightly);
  try {
    assert.deepEqual((await translateWith(pair)).tokens, release);
    // 1. The same version, its records changed (the Nightly files): downloaded again.
    const doc = JSON.parse(readFileSync(records, 'utf8'));
    const record = (version, type) => doc.data.find((r) => r.sourceLanguage === 'fr' && r.version === version && r.fileType === type);
    for (const type of ['model', 'vocab', 'lex']) {
      for (const key of ['attachment', 'decompressedHash', 'decompressedSize']) record('1.0', type)[key] = record('1.1a1', type)[key];
    }
    writeFileSync(records, JSON.stringify(doc));
    let r = await translateWith(pair);
    assert.deepEqual(r.tokens, nightly);
    assert.ok(r.downloads > 0);
    // 2. A newer release version: it replaces 1.0 in the cache.
    const newer = JSON.parse(readFileSync(path.join(made, 'catalog', 'records.json'), 'utf8'));
    for (const rec of newer.data.filter((x) => x.version === '1.1a1')) Object.assign(rec, { version: '1.2', filter_expression: '' });
    writeFileSync(records, JSON.stringify(newer));
    r = await translateWith(pair);
    assert.deepEqual(r.tokens, nightly);
    assert.deepEqual(r.versions, ['1.2']);
    const dir = readdirSync(cache).find((d) => d.startsWith('catalog-'));
    assert.deepEqual(readdirSync(path.join(cache, dir, 'fr-en')), ['1.2-tiny']);
    // Unchanged records: nothing is downloaded.
    assert.equal((await translateWith(pair)).downloads, 0);
  } finally {
    child.kill();
    await new Promise((done) => child.on('exit', done));
  }
  // 3. Offline: the cached 1.2 still translates, with nothing downloaded.
  const r = await translateWith(pair);
  assert.deepEqual(r.tokens, nightly);
  assert.equal(r.downloads, 0);
});

test('wrong hash, 404, cut download and zstd bombs: clear errors, nothing cached; bad options refused', async () => {
  const expect = { xa: /does not match its sha256/, xb: /HTTP status 404/, xc: /truncated/, xd: /decompresses to more than/,
    xe: /more than the/, xf: /decompressedHash/ };
  for (const [lang, message] of Object.entries(expect)) {
    const cache = cacheDir(`fail-${lang}`);
    await assert.rejects(Translator.create({ from: lang, to: 'en', catalog: url, cache, threads: 1 }),
      (e) => e.name === 'ModelLoadError' && message.test(e.message));
    const dir = existsSync(cache) ? readdirSync(cache).find((d) => d.startsWith('catalog-')) : null;
    const pairDir = dir && path.join(cache, dir, `${lang}-en`);
    const left = pairDir && existsSync(pairDir) ? readdirSync(pairDir, { recursive: true }).map(String) : [];
    assert.ok(!left.some((f) => f.includes('model.') || f.includes('.part-')), `${lang}: ${left}`);
  }
  await assert.rejects(Translator.create({ from: 'fr', to: 'xx', catalog: url, cache: cacheDir('x'), threads: 1 }),
    /cannot translate fr to xx/);
  await assert.rejects(Translator.create({ from: 'fr', catalog: url }), /option 'to'/);
  await assert.rejects(Translator.create({ from: 'fr', to: 'en', model: 'x.tfm' }), /either 'model' or 'from'/);
  await assert.rejects(Translator.create({ model: 'x.tfm', channel: 'beta' }), /go with 'from' and 'to'/);
});

// Every entry under `folder` (but those under `skip`) with its kind, size, mtime and content hash.
function listing(folder, skip) {
  const out = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (p === skip || p.startsWith(skip + path.sep)) continue;
      const st = lstatSync(p);
      const rel = path.relative(folder, p);
      if (st.isSymbolicLink()) out[rel] = ['link', readlinkSync(p), st.mtimeMs];
      else if (st.isDirectory()) {
        out[rel] = ['dir', st.mtimeMs];
        walk(p);
      } else out[rel] = ['file', st.size, st.mtimeMs, createHash('sha256').update(readFileSync(p)).digest('hex')];
    }
  };
  walk(folder);
  return out;
}

test('hostile records: refused naming the field in the folder cache (given and default) and the browser cache; nothing outside the cache touched', async () => {
  const base = path.join(work, 'hostile');
  const r = spawnSync('/usr/bin/python3', [path.join(ROOT, 'tests', 'catalog', 'hostile.py'), path.join(made, 'catalog'),
    path.join(base, 'catalogs'), base], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const cases = JSON.parse(r.stdout);
  assert.ok(cases.length >= 40);
  const victim = path.join(base, 'victim');
  const victimBefore = listing(victim, null);
  const saved = { HOME: process.env.HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  try {
    for (const [n, c] of cases.entries()) {
      const { child, url: hostileUrl } = await serve(c.catalog);
      try {
        for (const mode of ['given', 'default', 'browser']) {
          const box = path.join(base, `run${n}-${mode}`);
          mkdirSync(path.join(box, 'home', '.ssh'), { recursive: true });
          writeFileSync(path.join(box, 'home', '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA user@laptop\n');
          mkdirSync(path.join(box, 'victim', 'keep'), { recursive: true });
          writeFileSync(path.join(box, 'victim', 'keep', 'notes.txt'), 'keep me\n');
          const cache = mode === 'default' ? path.join(box, 'home', '.cache', 'tformer') : path.join(box, 'cache');
          mkdirSync(cache, { recursive: true });
          const before = listing(box, cache);
          const writes = [];
          const browserCache = { match: async () => undefined, keys: async () => [], delete: async () => true,
            put: async (request) => { writes.push(String(request.url ?? request)); } };
          const options = { from: 'fr', to: 'en', catalog: hostileUrl, threads: 1 };
          if (mode === 'given') options.cache = cache;
          if (mode === 'browser') options.cache = browserCache;
          if (mode === 'default') {
            process.env.HOME = path.join(box, 'home');
            delete process.env.XDG_CACHE_HOME;
          }
          const where = `${c.field}=${JSON.stringify(c.value)} (${mode} cache)`;
          await assert.rejects(Translator.create(options), (e) => {
            assert.equal(e.name, 'ModelLoadError', where);
            assert.ok(e.message.includes(`${c.field} `), `${where}: the error must name the field: ${e.message}`);
            return true;
          });
          if (saved.HOME === undefined) delete process.env.HOME; else process.env.HOME = saved.HOME;
          if (saved.XDG_CACHE_HOME !== undefined) process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
          assert.deepEqual(listing(box, cache), before, `${where}: something outside the cache changed`);
          assert.deepEqual(listing(victim, null), victimBefore, where);
          assert.deepEqual(writes, [], `${where}: nothing may be cached`);
          assert.ok(!readdirSync(cache, { recursive: true }).map(String).some((f) => f.includes('model.')), where);
        }
      } finally {
        child.kill();
        await new Promise((done) => child.on('exit', done));
      }
    }
  } finally {
    if (saved.HOME === undefined) delete process.env.HOME; else process.env.HOME = saved.HOME;
    if (saved.XDG_CACHE_HOME === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
  }
});

test('the folder cache writes and removes only inside its folder: links out of it refused, folders without its mark kept', async () => {
  const box = path.join(work, 'links');
  mkdirSync(path.join(box, 'victim', 'other'), { recursive: true });
  writeFileSync(path.join(box, 'victim', 'other', 'photo.jpg'), 'not really a photo\n');
  const cache = path.join(box, 'cache');
  (await Translator.create({ from: 'fr', to: 'en', catalog: url, cache, threads: 1 })).dispose();
  const pair = path.join(cache, readdirSync(cache).find((d) => d.startsWith('catalog-')), 'fr-en');
  assert.ok(existsSync(path.join(pair, '1.0-tiny', '.tformer-version')));
  mkdirSync(path.join(pair, '0.9-tiny'));
  writeFileSync(path.join(pair, '0.9-tiny', 'mine.txt'), "not the cache's\n");
  symlinkSync(path.join(box, 'victim', 'other'), path.join(pair, '0.8-tiny'));
  (await Translator.create({ from: 'fr', to: 'en', channel: 'nightly', catalog: url, cache, threads: 1 })).dispose();
  assert.deepEqual(readdirSync(pair).sort(), ['0.8-tiny', '0.9-tiny', '1.1a1-tiny']);
  assert.ok(existsSync(path.join(box, 'victim', 'other', 'photo.jpg')));
  // The pair's folder replaced by a link out of the cache: nothing is written through it.
  rmSync(pair, { recursive: true });
  symlinkSync(path.join(box, 'victim'), pair);
  const before = listing(box, cache);
  const t = await Translator.create({ from: 'fr', to: 'en', catalog: url, cache, threads: 1 });
  t.dispose();  // the files come from the download; the cache refused to keep them
  assert.deepEqual(listing(box, cache), before);
});
