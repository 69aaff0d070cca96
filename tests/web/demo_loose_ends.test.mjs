// The demo (web/demo/index.html) in headless Chromium, on test models (random weights) and a
// catalogue that cannot be reached: the page says which pairs are missing from its list and why;
// while another pair loads, the target pane holds no translation of the pair before; a failed
// translation leaves no earlier translation under its banner; a model folder that cannot be
// imported ("Use your own model") leaves the working model in use; Swap is off for a pair that
// has no other direction and keeps its focus after a key press. In Node: a catalogue that cannot
// be reached is refused with the cause fetch() gave, and the demo server's hint for a busy port is
// the command that works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { browserTestProblems, launchChromium, fixturePath, playwrightChromium, requireDist, webDir, withMetadata } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

// Test models: fx.deen and fx.ende (each the other's reverse) and fx.fren, which has none.
const root = mkdtempSync(path.join(tmpdir(), 'tformer-demo-loose-ends-'));
for (const [name, from, to, fixture] of [['fx.deen', 'de', 'en', 'marian'], ['fx.ende', 'en', 'de', 'tutorial'], ['fx.fren', 'fr', 'en', 'marian-ssru']]) {
  mkdirSync(path.join(root, 'models', name), { recursive: true });
  writeFileSync(path.join(root, 'models', name, 'model.tfm'),
    withMetadata(readFileSync(fixturePath(fixture)), { name, source_language: from, target_language: to }));
}

// A URL where nothing listens: a port taken, then given back.
async function closedUrl() {
  const s = http.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => s.on('listening', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

let server, browser, nowhere;
before(async () => {
  nowhere = await closedUrl();
  if (problems.length) return;
  requireDist();
  server = await startServer({ port: 0, quiet: true, modelsRoot: root });
  browser = await launchChromium(chromium);
});
after(async () => {
  await browser?.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(context, query) {
  const page = await context.newPage();
  const failures = [];
  page.on('pageerror', (e) => failures.push(e.message));
  await page.goto(`${server.url}?sw=off&plain&${query}`);
  return { page, failures };
}

// A text the fixtures translate into something (not every text: their weights are random).
const TEXT = 'Ein Mann fährt Fahrrad.';
const state = (page) => page.evaluate(() => document.body.dataset.state);
const waitForDone = (page, text) => page.waitForFunction((t) => document.body.dataset.state === 'done' &&
  (t === undefined || document.getElementById('output').dataset.source === t), text, { timeout: 120_000 });
const setSource = (page, text) => page.evaluate((t) => {
  const s = document.getElementById('source');
  s.value = t;
  s.dispatchEvent(new Event('input'));
}, text);

test('demo: an unreachable catalogue is named with why its pairs are missing; the own models work',
  { skip: problems.join('; ') || false, timeout: 300_000 }, async () => {
    const context = await browser.newContext();
    const { page, failures } = await open(context, `model=fx.deen&catalog=${encodeURIComponent(nowhere)}`);
    await page.waitForFunction(() => document.body.dataset.catalog === 'none', null, { timeout: 120_000 });
    await waitForDone(page);
    assert.equal(await page.isVisible('#catalog-note'), true);
    const note = await page.textContent('#catalog-note');
    assert.ok(note.startsWith(`The pairs of the model catalogue at ${nowhere} are missing from the list: it could not be read (cannot download ${nowhere}/`),
      note);
    assert.match(note, /\(and no copy of this catalogue is cached\)\)\. Our own models work as before/);
    assert.deepEqual(failures, []);
    await context.close();
  });

test('demo: while a pair loads, the pane under its label holds no translation of the pair before; a failure clears the old one',
  { skip: problems.join('; ') || false, timeout: 300_000 }, async () => {
    const context = await browser.newContext();
    const { page, failures } = await open(context, 'model=fx.deen&catalog=off');
    await waitForDone(page);
    await setSource(page, TEXT);
    await waitForDone(page, TEXT);
    assert.notEqual(await page.textContent('#output'), '');
    // fx.ende's model held back until the pane has been looked at.
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route('**/fx.ende/model.tfm', async (route) => { await held; await route.continue(); });
    await page.selectOption('#direction', 'fx.ende');
    await page.waitForFunction(() => document.body.dataset.state === 'loading');
    assert.deepEqual(await page.evaluate(() => [document.getElementById('target-label').textContent, document.getElementById('output').textContent,
      document.getElementById('heatmap').textContent]), ['German', '', 'Nothing translated yet.']);
    release();
    await waitForDone(page);

    // A failed translation: the banner, and no translation of an earlier text under it.
    await setSource(page, 'dog \uD800 cat');
    await page.waitForFunction(() => document.body.dataset.state === 'error');
    assert.match(await page.textContent('#error'), /^Translation failed: input text 1 is not valid Unicode/);
    assert.deepEqual(await page.evaluate(() => [document.getElementById('output').textContent, document.getElementById('timing').textContent,
      document.getElementById('heatmap').textContent]), ['', '', 'Nothing translated yet.']);
    assert.deepEqual(failures, []);
    await context.close();
  });

test('demo: a model folder that cannot be imported leaves the working model in use',
  { skip: problems.join('; ') || false, timeout: 300_000 }, async () => {
    const context = await browser.newContext();
    const { page, failures } = await open(context, 'model=fx.deen&catalog=off');
    await waitForDone(page);
    const text = TEXT;
    await setSource(page, text);
    await waitForDone(page, text);
    const translation = await page.textContent('#output');
    await page.click('#own-model summary');
    await page.setInputFiles('#own-files', [{ name: 'README.md', mimeType: 'text/markdown', buffer: Buffer.from('# notes\n\nnot a model\n') }]);
    await page.waitForFunction(() => document.getElementById('own-status').textContent.startsWith('the model could not be used'), null,
      { timeout: 120_000 });
    await waitForDone(page, text);
    assert.match(await page.textContent('#error'), /^The model README\.md could not be loaded: .+\. The page still translates with fx\.deen\.$/);
    assert.deepEqual(await page.evaluate(() => [window.demoEntry.id, document.getElementById('direction').value,
      document.getElementById('source-label').textContent, document.getElementById('target-label').textContent]),
    ['fx.deen', 'fx.deen', 'German', 'English']);
    assert.equal(await page.textContent('#output'), translation);
    assert.equal(await page.isDisabled('#source'), false);
    assert.deepEqual(failures, []);
    await context.close();
  });

test('demo: Swap is off for a pair without the other direction, and keeps its focus after Enter',
  { skip: problems.join('; ') || false, timeout: 300_000 }, async () => {
    const context = await browser.newContext();
    const { page, failures } = await open(context, 'model=fx.fren&catalog=off');
    await waitForDone(page);
    assert.equal(await page.isDisabled('#swap'), true, 'fr -> en has no en -> fr here');
    await page.selectOption('#direction', 'fx.deen');
    await waitForDone(page);
    assert.equal(await page.isDisabled('#swap'), false);
    await page.focus('#swap');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.demoEntry?.id === 'fx.ende' && document.body.dataset.state === 'done', null, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'swap');
    assert.equal(await state(page), 'done');
    assert.deepEqual(failures, []);
    await context.close();
  });

test('package in Node: a catalogue that cannot be reached is refused with the cause fetch() gave', async () => {
  const { Translator } = await import(path.join(webDir, 'src', 'index.js'));
  await assert.rejects(Translator.pairs({ catalog: nowhere, cache: false }),
    (e) => e.message.startsWith(`cannot download ${nowhere}/: fetch failed: connect ECONNREFUSED 127.0.0.1:`) || assert.fail(e.message));
});

test('demo server: a busy port names the command that serves on a free one', async () => {
  const busy = http.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => busy.on('listening', resolve));
  try {
    const r = spawnSync(process.execPath, [path.join(webDir, 'scripts', 'serve.mjs'), '--port', String(busy.address().port)],
      { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^port in use: .*\(npm run demo -- --port 0 serves on a free port; or --port N\)/);
  } finally {
    busy.close();
  }
});
