// A catalogue pair's languages by one rule, the web Translator API's (canonical tags, best fit),
// in the CLI (`tformer translate --from --to`, `tformer models`) and in the npm package
// (Translator.create({from, to})), against the local catalogue in Firefox's format (fr->en, en->de,
// fr->de through English): "FR" -> "EN" and "fr-CA" -> "en-GB" are its fr->en, token for token; a
// pair it lacks names the nearest pairs it has and where all are listed; a string that is not a
// language tag is refused naming it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalCatalog } from './local_catalog.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TFORMER = process.env.TFORMER ?? path.join(ROOT, 'build', 'tformer');
const { Translator } = await import(path.join(ROOT, 'web', 'src', 'index.js'));
const LINES = ['Bonjour tout le monde.', 'Un chien joue dans le parc.'];
const PLAIN = { passthrough: false, repetitionGuard: false };

let catalog;
before(async () => { catalog = await startLocalCatalog(); });
after(async () => { await catalog?.close(); });

const cli = (...args) => spawnSync(TFORMER, [...args, '--catalog', catalog.url, '--cache', path.join(catalog.work, 'cli-cache')],
  { input: `${LINES.join('\n')}\n`, encoding: 'utf8', timeout: 300_000 });

test('CLI: --from FR --to EN and --from fr-CA --to en-GB translate as fr -> en; models --from FR lists fr', () => {
  const reference = cli('translate', '--from', 'fr', '--to', 'en', '--scores');
  assert.equal(reference.status, 0, reference.stderr);
  assert.equal(reference.stdout.trim().split('\n').length, LINES.length);
  for (const [from, to] of [['FR', 'EN'], ['fr-CA', 'en-GB'], ['fra', 'en-US']]) {
    const r = cli('translate', '--from', from, '--to', to, '--scores');
    assert.equal(r.status, 0, `${from} -> ${to}: ${r.stderr}`);
    assert.equal(r.stdout, reference.stdout, `${from} -> ${to}`);
  }
  const models = cli('models', '--from', 'FR');
  assert.equal(models.status, 0, models.stderr);
  const rows = models.stdout.split('\n').filter((l) => /^\S+\s+\S+\s+(direct|via en)/.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join('->'));
  assert.deepEqual(rows.sort(), ['fr->de', 'fr->en']);
});

test('CLI: a pair the catalogue lacks names the nearest pairs and tformer models; a bad tag is named', () => {
  const missing = cli('translate', '--from', 'fr', '--to', 'it');
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /the catalogue cannot translate fr to it: .*; the nearest pairs it has: fr->de, fr->en; tformer models lists them all/);
  const bad = cli('translate', '--from', 'fr_CA', '--to', 'en');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /'fr_CA' is not a language tag \(BCP 47/);
  const same = cli('translate', '--from', 'EN', '--to', 'en-GB');
  assert.equal(same.status, 1);
  assert.match(same.stderr, /the source and target languages are the same \('en', 'en-GB'\)/);
});

test("package: Translator.create({from: 'FR', to: 'EN'}) and {from: 'fr-CA', to: 'en-GB'} are the catalogue's fr -> en", async () => {
  const cache = path.join(catalog.work, 'package-cache');
  const reference = await Translator.create({ from: 'fr', to: 'en', catalog: catalog.url, cache });
  const expected = (await reference.translate(LINES, PLAIN)).map((r) => r.sentences.map((s) => [...s.tokens]));
  reference.dispose();
  for (const [from, to] of [['FR', 'EN'], ['fr-CA', 'en-GB']]) {
    const t = await Translator.create({ from, to, catalog: catalog.url, cache });
    try {
      assert.deepEqual([t.info.model.catalog.from, t.info.model.catalog.to], ['fr', 'en']);
      assert.deepEqual((await t.translate(LINES, PLAIN)).map((r) => r.sentences.map((s) => [...s.tokens])), expected, `${from} -> ${to}`);
    } finally {
      t.dispose();
    }
  }
});

test('package: a pair the catalogue lacks names the nearest pairs and Translator.pairs(); a bad tag is a RangeError', async () => {
  const cache = path.join(catalog.work, 'package-cache');
  await assert.rejects(Translator.create({ from: 'FR', to: 'it', catalog: catalog.url, cache }),
    /the catalogue cannot translate fr to it: .*; the nearest pairs it has: fr->de, fr->en; Translator\.pairs\(\) lists them all/);
  await assert.rejects(Translator.create({ from: 'fr_CA', to: 'en', catalog: catalog.url, cache }),
    (e) => e instanceof RangeError && /option 'from' is not a language tag \(BCP 47, such as 'fr' or 'pt-BR'\): "fr_CA"/.test(e.message));
});
