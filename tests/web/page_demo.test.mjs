// The page-translation demo (web/demo/page.html) in headless Chromium with the shipped de->en
// model, through the standard Translator and LanguageDetector of tformer-wasm/polyfill
// (?polyfill=force: Chromium's own have no models here): the page's language is detected, and the
// block in another language; the languages offered are the catalogue's targets. "Translate page"
// translates the blocks in view first and the rest as they scroll into view, a few requests for
// the whole page (batches of blocks); every text node of the article is translated (changed) but
// translate="no" and code, and the block already in the target language, which stay as they were;
// every link still points where it pointed; "Show original" gives back the page byte for byte
// (document.body's innerHTML), also when pressed while blocks are still being translated. <html
// lang> is the language the page is in: the translation's, then the original's again. The English
// article goes the other way (en->de).
// A screenshot goes to build-web/screenshots/page-translated.png (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { browserTestProblems, launchChromium, playwrightChromium, requireDist, screenshots } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

let server, browser;
before(async () => {
  if (problems.length) return;
  requireDist();
  mkdirSync(screenshots, { recursive: true });
  server = await startServer({ port: 0, quiet: true });
  browser = await launchChromium(chromium);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

// The article's text nodes (whitespace-only ones aside): those the page translates, and those it
// must keep (inside translate="no" or code); per block its text; the links' targets.
const readArticle = (page) => page.evaluate(() => {
  const article = document.getElementById('article');
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const texts = [], kept = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    if (text) (n.parentElement.closest('[translate="no"], code, pre') ? kept : texts).push(text);
  }
  const blocks = [...article.querySelectorAll('h1, h2, p, li, th, td, blockquote')].filter((b) => !b.closest('pre'))
    .map((b) => b.textContent.replace(/\s+/g, ' ').trim());
  return { texts, kept, blocks, hrefs: [...article.querySelectorAll('a')].map((a) => a.getAttribute('href')) };
});

const settled = () => {
  const s = window.pageDemo;
  return s.translated > 0 && s.waiting === 0 && s.translated === s.requests.reduce((n, k) => n + k, 0);
};

test('page demo: translated in place, in view first, in a few requests; links kept; Show original restores the page byte for byte',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async (t) => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    const failures = [];
    page.on('pageerror', (e) => failures.push(e.message));
    // A failed request is told by its response, with its URL (the console's line has none); the
    // relaxed-SIMD build is optional, and its probe may 404.
    page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) failures.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400 && !/\/tformer-mtr\./.test(r.url())) failures.push(`HTTP ${r.status()} ${r.url()}`); });
    await page.goto(new URL('page.html?polyfill=force', server.url).href);
    await page.waitForFunction(() => window.pageDemo?.languagesRead > 0);
    const original = await page.evaluate(() => document.body.innerHTML);
    const before = await readArticle(page);
    assert.ok(before.texts.length > 60, `${before.texts.length} text nodes`);
    assert.deepEqual(before.kept.slice(0, 1), ['Seestern']);
    // Detected: the page is German; its sign is English; the catalogue translates German into English.
    const languages = await page.evaluate(() => ({ page: window.pageDemo.page, blocks: window.pageDemo.blockLanguages,
      targets: window.pageDemo.targets, detected: document.getElementById('detected').textContent,
      options: [...document.getElementById('target-language').options].map((o) => [o.value, o.text]) }));
    assert.equal(languages.page.language, 'de');
    assert.ok(languages.page.confidence > 0.8, JSON.stringify(languages.page));
    assert.deepEqual(languages.blocks.map((b) => [b.language, b.text.slice(0, 20)]), [['en', 'A sign by the water ']]);
    assert.deepEqual(languages.options, [['en', 'English (downloadable)']]);
    assert.match(languages.detected, /^German \(\d+%\), 1 block in English$/);
    const sign = before.blocks.findIndex((b) => b.startsWith('A sign by the water'));

    // Long tasks on the page's thread while it translates (diagnostic: the engine is in a Worker).
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ entryTypes: ['longtask'] });
    });
    await page.click('#translate');
    await page.waitForFunction(settled, null, { timeout: 300_000 });
    const first = await page.evaluate(() => ({ ...window.pageDemo, requests: [...window.pageDemo.requests] }));
    assert.equal(first.error, null);
    assert.ok(first.translated < first.blocks, `only the blocks near the view first: ${first.translated} of ${first.blocks}`);
    const lastBlock = await page.$eval('#article > p.note', (p) => p.textContent);
    assert.match(lastBlock, /Die Fotos auf dieser Seite/, 'the end of the page waits for the scroll');

    // Scrolling brings the rest.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    for (let y = 0; y <= height; y += 400) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(50);
    }
    await page.waitForFunction(() => window.pageDemo.mode === 'translated' || window.pageDemo.error, null, { timeout: 300_000 });
    const done = await page.evaluate(() => ({ ...window.pageDemo, requests: [...window.pageDemo.requests], longTasks: window.longTasks }));
    assert.equal(done.error, null);
    assert.equal(done.translated, done.blocks);
    assert.ok(done.requests.length <= Math.ceil(done.blocks / 4), `${done.blocks} blocks in ${done.requests.length} requests (${done.requests.join(', ')})`);
    t.diagnostic(`${done.blocks} blocks in ${done.requests.length} requests (${done.requests.join(', ')} blocks); ` +
      `${first.translated} in view first; longest task on the page's thread ${Math.max(0, ...done.longTasks).toFixed(0)} ms`);

    const after = await readArticle(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(screenshots, 'page-translated.png'), fullPage: true });
    // Every text node changed: none of them with a letter in it is a text node of the original
    // article (punctuation between elements, such as the '.' after a link, stays punctuation).
    const old = new Set(before.texts.filter((x) => x !== before.blocks[sign]));
    const unchanged = after.texts.filter((x) => /\p{L}/u.test(x) && old.has(x));
    assert.ok(after.texts.filter((x) => /\p{L}/u.test(x)).length > 60);
    assert.deepEqual(unchanged, [], 'text nodes left as they were');
    assert.equal(after.blocks.length, before.blocks.length);
    after.blocks.forEach((b, i) => (i === sign ? assert.equal(b, before.blocks[i], 'the English sign stays')
      : assert.notEqual(b, before.blocks[i], `block ${i} changed`)));
    assert.match(after.blocks[0], /lake/i, `the heading: ${after.blocks[0]}`);
    // What must not be translated is as it was.
    assert.deepEqual(after.kept, before.kept);
    // Links point where they did (a link may come out in two pieces around a moved word).
    assert.deepEqual([...new Set(after.hrefs)].sort(), [...new Set(before.hrefs)].sort());

    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en', 'the page says it is English now');
    // Show original: the page byte for byte.
    await page.click('#original');
    assert.equal(await page.evaluate(() => document.body.innerHTML), original);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');

    // Again, and Show original while blocks are still on their way.
    await page.click('#translate');
    await page.waitForFunction(() => window.pageDemo.requests.length > 0);
    await page.click('#original');
    assert.equal(await page.evaluate(() => document.body.innerHTML), original);
    // Whatever was running finishes into nothing: the page stays the original.
    await page.waitForTimeout(1000);
    assert.equal(await page.evaluate(() => document.body.innerHTML), original);
    assert.deepEqual(failures, []);
    await context.close();
  });

test('page demo, the English article: translated into German, <html lang> follows, Show original restores it',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 4000 } });  // every block in view
    const page = await context.newPage();
    const failures = [];
    page.on('pageerror', (e) => failures.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error' && !/^Failed to load resource/.test(m.text())) failures.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400 && !/\/tformer-mtr\./.test(r.url())) failures.push(`HTTP ${r.status()} ${r.url()}`); });
    await page.goto(new URL('page.html?article=en&polyfill=force', server.url).href);
    await page.waitForFunction(() => window.pageDemo?.languagesRead > 0 && document.getElementById('article').dataset.language === 'en');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    const languages = await page.evaluate(() => ({ page: window.pageDemo.page.language, blocks: window.pageDemo.blockLanguages.map((b) => b.language),
      options: [...document.getElementById('target-language').options].map((o) => o.value) }));
    assert.deepEqual(languages, { page: 'en', blocks: ['de'], options: ['de'] });
    const original = await page.evaluate(() => document.body.innerHTML);
    const before = await readArticle(page);
    assert.match(before.blocks[0], /^A day in the mountains$/);
    assert.deepEqual(before.kept.slice(0, 1), ['Alpenrose']);
    await page.click('#translate');
    await page.waitForFunction(() => window.pageDemo.mode === 'translated' || window.pageDemo.error, null, { timeout: 300_000 });
    assert.equal(await page.evaluate(() => window.pageDemo.error), null);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    const after = await readArticle(page);
    const sign = before.blocks.findIndex((b) => b.startsWith('Auf einem Schild'));
    const old = new Set(before.texts.filter((x) => x !== before.blocks[sign]));
    assert.deepEqual(after.texts.filter((x) => /\p{L}/u.test(x) && old.has(x)), [], 'text nodes left as they were');
    assert.equal(after.blocks[sign], before.blocks[sign], 'the German sign stays');
    assert.deepEqual(after.kept, before.kept);
    assert.deepEqual([...new Set(after.hrefs)].sort(), [...new Set(before.hrefs)].sort());
    await page.screenshot({ path: path.join(screenshots, 'page-translated-en-de.png') });
    await page.click('#original');
    assert.equal(await page.evaluate(() => document.body.innerHTML), original);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    // The selector switches the article back to German, and its direction with it.
    await page.selectOption('#article-language', 'de');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    assert.match((await readArticle(page)).blocks[0], /^Ein Tag am See$/);
    await page.waitForFunction(() => window.pageDemo.languagesRead > 1);
    assert.equal(await page.evaluate(() => window.pageDemo.page.language), 'de', 'the German article is detected again');
    assert.deepEqual(failures, []);
    await context.close();
  });
