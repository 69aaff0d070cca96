// The page demo (web/demo/page.html) in Chromium as it is: Chromium has its own LanguageDetector
// and Translator, without their models here (LanguageDetector.availability() answers
// "unavailable" and its create() rejects, Translator.availability() answers "downloadable"). The
// page uses the browser's API only where availability() answers "available", else tformer-wasm's,
// and a line of its toolbar says which: the languages are read, English is offered, the page is
// translated, and the target no longer says "(downloadable)" once its model has loaded; with
// ?api=standard the standard Translator is tformer-wasm's too. Where the browser's API answers
// "available" (a stand-in defined before the page's scripts), it is the one used, and the line says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserTestProblems, playwrightChromium, chromiumWithDemoServer } from './helpers.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

const env = chromiumWithDemoServer(problems);

async function open(context, url) {
  const page = await context.newPage();
  const failures = [];
  page.on('pageerror', (e) => failures.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) failures.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && !/\/tformer-mtr\./.test(r.url())) failures.push(`HTTP ${r.status()} ${r.url()}`); });
  await page.goto(new URL(url, env.server.url).href);
  await page.waitForFunction(() => window.pageDemo?.languagesRead > 0);
  return { page, failures };
}

const shown = (page) => page.evaluate(() => ({
  error: window.pageDemo.error, language: window.pageDemo.page?.language, apis: window.pageDemo.apis,
  line: document.getElementById('apis').textContent, status: document.getElementById('status').textContent,
  options: [...document.getElementById('target-language').options].map((o) => [o.value, o.text]),
  translateDisabled: document.getElementById('translate').disabled,
}));

// What this Chromium's own APIs answer on a page of the demo's origin.
const browserAnswers = (page) => page.evaluate(async () => ({
  detector: typeof LanguageDetector === 'function' ? await LanguageDetector.availability().catch((e) => `error ${e.message}`) : null,
  translator: typeof Translator === 'function'
    ? await Translator.availability({ sourceLanguage: 'de', targetLanguage: 'en' }).catch((e) => `error ${e.message}`) : null,
}));

test('page demo in Chromium as it is: its own APIs without models are not used, the page says so and translates',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async (t) => {
    const context = await env.browser.newContext({ viewport: { width: 1000, height: 5000 } });  // every block in view
    const { page, failures } = await open(context, 'page.html');
    const answers = await browserAnswers(page);
    t.diagnostic(`Chromium's own APIs answer: LanguageDetector ${answers.detector}, Translator de->en ${answers.translator}`);
    assert.notEqual(answers.detector, null, 'this Chromium has a LanguageDetector of its own (the case this test is for)');
    assert.notEqual(answers.detector, 'available', 'the browser\'s own LanguageDetector has no model here');
    const s = await shown(page);
    assert.equal(s.error, null, s.status);
    assert.equal(s.language, 'de');
    assert.deepEqual(s.apis.detector, { which: 'package', answer: answers.detector });
    assert.deepEqual(s.apis.translators.en, { which: 'package', answer: answers.translator });
    assert.equal(s.line, `Languages detected by tformer-wasm's CLD2 detector (the browser's own LanguageDetector.availability() answers ` +
      `"${answers.detector}"); translated by tformer-wasm's own Translator (links and emphasis carried onto the translated words).`);
    assert.deepEqual(s.options, [['en', 'English (downloadable)']]);
    assert.equal(s.translateDisabled, false);
    await page.click('#translate');
    await page.waitForFunction(() => window.pageDemo.mode === 'translated' || window.pageDemo.error, null, { timeout: 300_000 });
    const done = await shown(page);
    assert.equal(done.error, null);
    assert.match(await page.textContent('#article h1'), /lake/i);
    // The model is here now: the target is no longer "downloadable".
    assert.deepEqual(done.options, [['en', 'English']]);
    assert.equal(await page.evaluate(() => window.pageDemo.targets[0].availability), 'available');
    assert.deepEqual(failures, []);
    await context.close();
  });

test('page demo in Chromium as it is, ?api=standard: the standard Translator is tformer-wasm\'s where the browser\'s cannot serve',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async () => {
    const context = await env.browser.newContext({ viewport: { width: 1000, height: 5000 } });
    const { page, failures } = await open(context, 'page.html?api=standard');
    const answers = await browserAnswers(page);
    const s = await shown(page);
    assert.equal(s.error, null, s.status);
    assert.deepEqual(s.apis.translators.en, { which: 'package', answer: answers.translator });
    assert.match(s.line, new RegExp(`; translated into English by tformer-wasm's Translator \\(the browser's own Translator\\.availability\\(\\) ` +
      `answers "${answers.translator}"\\)\\.$`));
    await page.click('#translate');
    await page.waitForFunction(() => window.pageDemo.mode === 'translated' || window.pageDemo.error, null, { timeout: 300_000 });
    assert.equal(await page.evaluate(() => window.pageDemo.error), null);
    assert.match(await page.textContent('#article h1'), /lake/i);
    assert.deepEqual(failures, []);
    await context.close();
  });

test('page demo: a browser LanguageDetector that answers "available" is the one used, and the page says so',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async () => {
    const context = await env.browser.newContext();
    // A stand-in for a browser whose detector has its model: it calls everything German.
    await context.addInitScript(() => {
      window.browserDetections = 0;
      window.LanguageDetector = class {
        static async availability() { return 'available'; }
        static async create() {
          return { detect: async () => { window.browserDetections++; return [{ detectedLanguage: 'de', confidence: 0.97 }]; } };
        }
      };
    });
    const { page, failures } = await open(context, 'page.html');
    const s = await shown(page);
    assert.equal(s.error, null, s.status);
    assert.deepEqual(s.apis.detector, { which: 'browser', answer: 'available' });
    assert.match(s.line, /^Languages detected by the browser's LanguageDetector; /);
    assert.deepEqual(await page.evaluate(() => [window.pageDemo.page, window.browserDetections > 0]), [{ language: 'de', confidence: 0.97 }, true]);
    assert.deepEqual(s.options.map(([value]) => value), ['en']);
    assert.deepEqual(failures, []);
    await context.close();
  });
