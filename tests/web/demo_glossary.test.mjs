// The demo's glossary editor in headless Chromium, with the shipped de->en model: a term added
// changes the translation (and the heat map's rows, which name the model's piece it replaced), the rows are kept across a reload (localStorage, per language pair), a
// removed row stops applying, a target with markup is shown as text, and a bad glossary (a
// source given twice) shows the engine's message without breaking the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { browserTestProblems, playwrightChromium, repoRoot, chromiumWithDemoServer } from './helpers.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);
if (!existsSync(path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm'))) problems.push('no models/tiny.deen/model.tfm');

const env = chromiumWithDemoServer(problems);

const setSource = (page, text) => page.evaluate((t) => {
  const s = document.getElementById('source');
  s.value = t;
  s.dispatchEvent(new Event('input'));
}, text);
// The output of `text` with the glossary now in use, done.
const waitForOutput = (page, text, timeout = 60_000) => page.waitForFunction((t) => document.getElementById('output').dataset.source === t &&
  document.body.dataset.state === 'done', text, { timeout });
const settle = async (page, text) => {
  // An edit translates again after a short pause; wait until the newest translation is done.
  await page.waitForTimeout(700);
  await waitForOutput(page, text);
};

test('the glossary editor: add, persist, remove; markup in a target is text; a bad glossary says why',
  { skip: problems.join('; ') || false, timeout: 300_000 }, async () => {
    const context = await env.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const failures = [];
    page.on('pageerror', (e) => failures.push(e.message));
    await page.goto(`${env.server.url}?sw=off&model=tiny.deen`);
    await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 120_000 });
    const text = 'Das Haus ist sehr alt.';
    await setSource(page, text);
    await waitForOutput(page, text);
    const plain = await page.textContent('#output');
    assert.match(plain, /house/i, plain);

    // Add a term: the translation follows.
    await page.click('#glossary summary');
    await page.click('#glossary-add');
    await page.fill('#glossary tbody tr:nth-child(1) .glossary-source', 'Haus');
    await page.fill('#glossary tbody tr:nth-child(1) .glossary-target', 'building');
    await settle(page, text);
    const withTerm = await page.textContent('#output');
    assert.match(withTerm, /\bbuilding\b/, withTerm);
    assert.doesNotMatch(withTerm, /house/i, withTerm);
    // The heat map shows the translation's words: the term's row is labelled with it, and its cells
    // name the model's piece it replaced as replaced, not as a piece of the translation.
    const row = await page.evaluate(() => {
      const labels = [...document.querySelectorAll('#heatmap text.target-piece')].map((t) => t.textContent);
      const r = labels.indexOf('building');
      const src = document.querySelectorAll('#heatmap text.source-piece').length;
      return { labels, title: r < 0 ? null : document.querySelectorAll('#heatmap rect.cell, #heatmap rect.outside')[r * src].textContent };
    });
    assert.ok(row.title, `a row labelled "building": ${row.labels.join(' | ')}`);
    assert.match(row.title, /^building \u2190 \S+: [\d.]+ \("building" in place of the model's piece \u2581house \u2190 piece \S+\)$/);
    assert.doesNotMatch(row.labels.join(' '), /house/);

    // Kept across a reload, for this language pair.
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 120_000 });
    assert.equal(await page.inputValue('#glossary tbody tr:nth-child(1) .glossary-source'), 'Haus');
    assert.equal(await page.inputValue('#glossary tbody tr:nth-child(1) .glossary-target'), 'building');
    assert.equal(await page.getAttribute('#glossary summary', 'data-count'), '1');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('tformer-demo-glossary:de-en')));
    assert.deepEqual(stored, [{ source: 'Haus', target: 'building', anyCase: false }]);
    await setSource(page, text);
    await waitForOutput(page, text);
    assert.match(await page.textContent('#output'), /\bbuilding\b/);

    // A target with markup is text in the output, not an element.
    await page.click('#glossary summary');
    await page.fill('#glossary tbody tr:nth-child(1) .glossary-target', '<b>Gebäude</b>');
    await settle(page, text);
    assert.match(await page.textContent('#output'), /<b>Gebäude<\/b>/);
    assert.equal(await page.locator('#output b').count(), 0);

    // A second row with the same term in any case: the engine refuses it, the page says why.
    await page.click('#glossary-add');
    await page.fill('#glossary tbody tr:nth-child(2) .glossary-source', 'haus');
    await page.check('#glossary tbody tr:nth-child(2) .glossary-any-case');
    await page.waitForFunction(() => document.getElementById('error').textContent.includes('is given already'), null, { timeout: 60_000 });
    assert.match(await page.textContent('#error'), /glossary\[1\]: source "haus" is given already by glossary\[0\]/);

    // Removing both rows: the model's own translation again, and nothing stored.
    await page.click('#glossary tbody tr:nth-child(2) .glossary-remove');
    await page.click('#glossary tbody tr:nth-child(1) .glossary-remove');
    await settle(page, text);
    assert.equal(await page.textContent('#output'), plain);
    assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('tformer-demo-glossary:de-en'))), []);
    assert.deepEqual(failures, []);
    await context.close();
  });
