// node --test tests/catalog/demo_browser.test.mjs
//
// The demo in headless Chromium with the local catalogue (make_catalog.py, server.py) as its
// catalogue (?catalog=URL): the direction list offers our own models (named as ours) and the
// catalogue's pairs with their download size, direct and through English; choosing a pair says
// what it will download, shows the download's progress, and translates as the native CLI does with
// the same Marian folder (a pivot pair: the two folders one after the other).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { CHROMIUM, launchChromium, playwrightChromium, nativeCli, repoRoot } from '../web/helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const chromium = playwrightChromium();
const reason = !existsSync(CHROMIUM) ? `no ${CHROMIUM}` : !chromium ? 'npm playwright-core is not installed in web/node_modules'
  : !existsSync(nativeCli) ? `no native CLI at ${nativeCli}` : false;

let work, made, catalog, catalogUrl, server, browser;

before(async () => {
  if (reason) return;
  work = mkdtempSync(path.join(os.tmpdir(), 'tformer-catalog-demo-'));
  made = path.join(work, 'made');
  const r = spawnSync('/usr/bin/python3', [path.join(repoRoot, 'tests', 'catalog', 'make_catalog.py'), made], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  catalog = spawn('/usr/bin/python3', [path.join(repoRoot, 'tests', 'catalog', 'server.py'), path.join(made, 'catalog')]);
  catalogUrl = await new Promise((resolve, reject) => {
    catalog.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
    catalog.on('exit', (code) => reject(new Error(`catalogue server exited ${code}`)));
  });
  server = await startServer({ port: 0, quiet: true });
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await server?.close();
  catalog?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

function cli(args, input) {
  const r = spawnSync(nativeCli, ['translate', ...args], { input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trimEnd();
}

async function translateIn(page, text) {
  await page.fill('#source', text);
  await page.waitForFunction((t) => document.body.dataset.state === 'done' && document.getElementById('output').dataset.source === t,
    text, { timeout: 120e3 });
  return (await page.textContent('#output')).trim();
}

test('demo: the catalogue\'s pairs beside our own models; size, then progress; translations as the CLI gives them',
  { skip: reason, timeout: 600e3 }, async () => {
    const page = await browser.newPage();
    const failures = [];
    page.on('pageerror', (e) => failures.push(e.message));
    const progress = [];
    await page.exposeFunction('noteProgress', (t) => progress.push(t));
    await page.goto(`${server.url}?sw=off&catalog=${encodeURIComponent(catalogUrl)}`);
    await page.waitForFunction(() => document.body.dataset.catalog === 'ready', null, { timeout: 120e3 });
    const groups = await page.$$eval('#direction optgroup', (gs) => gs.map((g) => ({ label: g.label, options: [...g.children].map((o) => [o.value, o.textContent]) })));
    assert.match(groups[0].label, /our own models/);
    const pairs = Object.fromEntries(groups[1].options);
    assert.match(pairs['catalog:fr-en'], /^French → English \(0\.\d\d MiB\)$/);
    assert.match(pairs['catalog:fr-de'], /^French → German \(through English, 0\.\d\d MiB\)$/);
    await page.waitForFunction(() => ['ready', 'done'].includes(document.body.dataset.state), null, { timeout: 120e3 });
    await page.selectOption('#beam', '1');  // greedy, the CLI's default search (the demo's 'auto' takes beam 4 for short texts)

    // Direct: what it will download first, then the download's progress, then the translation.
    await page.evaluate(() => new MutationObserver(() => window.noteProgress(document.getElementById('progress-text').textContent))
      .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true }));
    await page.selectOption('#direction', 'catalog:fr-en');
    await page.waitForFunction(() => ['ready', 'done'].includes(document.body.dataset.state) && !document.getElementById('direction').disabled,
      null, { timeout: 120e3 });
    assert.ok(progress.some((t) => /up to 0\.\d\d MiB to download unless cached/.test(t)), progress.join(' | '));
    assert.ok(progress.some((t) => /downloading the fr->en model: .* of 0\.\d\d MiB/.test(t)), progress.join(' | '));
    const sentence = 'Bonjour tout le monde.';
    assert.equal(await translateIn(page, sentence), cli(['-m', path.join(made, 'folders', 'fren')], sentence));

    // Through English: the two folders one after the other.
    await page.selectOption('#direction', 'catalog:fr-de');
    await page.waitForFunction(() => /catalog:fr-de/.test(document.getElementById('engine').textContent), null, { timeout: 120e3 });
    const first = cli(['-m', path.join(made, 'folders', 'fren'), '--no-split'], sentence);
    assert.equal(await translateIn(page, `${sentence} `), cli(['-m', path.join(made, 'folders', 'ende'), '--no-split'], first));
    assert.deepEqual(failures, []);
    await page.close();
  });
