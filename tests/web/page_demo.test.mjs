// The page-translation demo (web/demo/page.html, on the package's translatePage) in the browser
// engines of the run (tests/web/helpers.mjs launchBrowser) with the shipped de->en model, the languages read through the standard Translator and
// LanguageDetector the page chooses (Chromium's own have no models here: tformer-wasm's; demo_page_apis.test.mjs):
// the page's language is detected, and the block in another language; the languages offered are
// the catalogue's targets. "Translate page" translates the blocks in view first and the rest as
// they scroll into view, a few requests for the whole page (batches of blocks); every text node of
// the article is translated (changed) but translate="no" and code, and the block already in the
// target language, which stay as they were; every link still points where it pointed; "Show
// original" gives back the page byte for byte (document.body's innerHTML), also when pressed while
// blocks are still being translated. <html lang> is the language the page is in: the
// translation's, then the original's again. The English article goes the other way (en->de).
// With ?api=standard the page is translated through the standard Translator (plain text runs).
// The views: the translation with the original's text on hover, the original with its translation
// below or beside it, and back to the very same nodes. A page loaded again comes from the
// translation memory (IndexedDB): every sentence, counted by the memory's hits, with both times
// printed. A hostile page (markup written as text, handlers in attributes, its own script) gets
// no element that was not its own and runs nothing.
// Every engine runs the page translated in place, the memory and the hostile page; the English
// article, the bilingual views and ?api=standard run in Chromium (the same code paths, and the CI
// time of the other engines' suites is kept to a few minutes).
// Screenshots go to build-web/screenshots/page-*.png (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ENGINES, closeSharedBrowsers, engineSkip, requireDist, screenshots, sharedBrowser, testedEngines } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

let server;
before(async () => {
  requireDist();
  mkdirSync(screenshots, { recursive: true });
  server = await startServer({ port: 0, quiet: true });
});
after(async () => {
  await closeSharedBrowsers();
  await server?.close();
});

const everywhere = testedEngines();
const chromiumOnly = testedEngines(['chromium']);
const shot = (kind, name) => path.join(screenshots, kind === 'chromium' ? `${name}.png` : `${name}-${kind}.png`);
// What a page reported that is a failure: its errors and failed requests (the relaxed-SIMD build is
// optional, and its probe may 404; a failed request is told by its response, with its URL, where the
// engine reports responses: Chromium's console line has none, Firefox's names a blocked
// cross-origin request, as the catalogue online is without a network).
const failuresOf = async (page) => (await page.errors()).filter((e) => !/^Failed to load resource|\/tformer-mtr\.|favicon|^Cross-Origin Request Blocked/.test(e));

// The page's body as Show original must give it back: byte for byte, but for the target list's
// labels, which say "(downloadable)" until the model has loaded and then no more.
const bodyHtml = (page) => page.evaluate(() => {
  const body = document.body.cloneNode(true);
  for (const o of body.querySelectorAll('#target-language option')) o.textContent = o.value;
  return body.innerHTML;
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

for (const kind of everywhere) test(`page demo in ${ENGINES[kind].label}: translated in place, in view first, in a few requests; links kept; Show original restores the page byte for byte`,
  { skip: engineSkip(kind), timeout: 600_000 }, async (t) => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    await page.goto(new URL('page.html', server.url).href);
    await page.waitForFunction(() => window.pageDemo?.languagesRead > 0);
    const original = await bodyHtml(page);
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
    const lastBlock = await page.textContent('#article > p.note');
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
    await page.screenshot({ path: shot(kind, 'page-translated'), fullPage: true });
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
    assert.equal(await bodyHtml(page), original);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');

    // Again, and Show original while blocks are still on their way.
    await page.click('#translate');
    await page.waitForFunction(() => window.pageDemo.requests.length > 0);
    await page.click('#original');
    assert.equal(await bodyHtml(page), original);
    // Whatever was running finishes into nothing: the page stays the original.
    await page.waitForTimeout(1000);
    assert.equal(await bodyHtml(page), original);
    assert.deepEqual(await failuresOf(page), []);
    await context.close();
  });

for (const kind of chromiumOnly) test('page demo, the English article: translated into German, <html lang> follows, Show original restores it',
  { skip: engineSkip(kind), timeout: 600_000 }, async () => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1000, height: 4000 } });  // every block in view
    const page = await context.newPage();
    await page.goto(new URL('page.html?article=en', server.url).href);
    await page.waitForFunction(() => window.pageDemo?.languagesRead > 0 && document.getElementById('article').dataset.language === 'en');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    const languages = await page.evaluate(() => ({ page: window.pageDemo.page.language, blocks: window.pageDemo.blockLanguages.map((b) => b.language),
      options: [...document.getElementById('target-language').options].map((o) => o.value) }));
    assert.deepEqual(languages, { page: 'en', blocks: ['de'], options: ['de'] });
    const original = await bodyHtml(page);
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
    await page.screenshot({ path: shot(kind, 'page-translated-en-de') });
    await page.click('#original');
    assert.equal(await bodyHtml(page), original);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    // The selector switches the article back to German, and its direction with it.
    await page.selectOption('#article-language', 'de');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    assert.match((await readArticle(page)).blocks[0], /^Ein Tag am See$/);
    await page.waitForFunction(() => window.pageDemo.languagesRead > 1);
    assert.equal(await page.evaluate(() => window.pageDemo.page.language), 'de', 'the German article is detected again');
    assert.deepEqual(await failuresOf(page), []);
    await context.close();
  });

// A page with every block in view, its translation done (the demo's state), and what it read first.
// failures(): what the page reported that is a failure (read before the page is closed).
async function translatedPage(context, url, prepare = null) {
  const page = await context.newPage();
  const failures = () => failuresOf(page);
  await page.goto(new URL(url, server.url).href);
  await page.waitForFunction(() => window.pageDemo?.languagesRead > 0);
  if (prepare) await page.evaluate(prepare);
  const original = await bodyHtml(page);
  const before = await readArticle(page);
  await page.click('#translate');
  await page.waitForFunction(() => (window.pageDemo.mode === 'translated' && window.pageDemo.memorySaved) || window.pageDemo.error,
    null, { timeout: 300_000 });
  assert.equal(await page.evaluate(() => window.pageDemo.error), null);
  return { page, failures, original, before, state: await page.evaluate(() => ({ ...window.pageDemo })) };
}

// Each block of the article with its halves in the bilingual views: the block's own nodes (the
// original, where they were) and the copy of its translation after them.
const readPairs = (page) => page.evaluate(() => [...document.querySelectorAll('#article .tformer-translation')].map((t) => {
  const block = t.parentElement;
  const range = document.createRange();
  range.setStartBefore(block.firstChild);
  range.setEndBefore(t);
  const copy = document.createRange();
  copy.selectNodeContents(t);
  const [ob, tb] = [range.getBoundingClientRect(), copy.getBoundingClientRect()];  // the text's boxes, not the elements'
  const original = [...block.childNodes].filter((n) => n !== t).map((n) => n.textContent).join('');
  return { view: t.dataset.view, original: original.replace(/\s+/g, ' ').trim(), translation: t.textContent.replace(/\s+/g, ' ').trim(),
    originalLang: block.closest('[lang]')?.lang, translationLang: t.lang, originalBox: { top: ob.top, bottom: ob.bottom, left: ob.left, right: ob.right },
    translationBox: { top: tb.top, bottom: tb.bottom, left: tb.left, right: tb.right } };
}));

for (const kind of chromiumOnly) test('page demo: the translation, the original below or beside it, the original on hover, and back to the very same nodes',
  { skip: engineSkip(kind), timeout: 600_000 }, async () => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1200, height: 5000 } });  // every block in view
    // Each block's first node is marked, and one has a listener: going back must give these nodes.
    const mark = () => {
      const blocks = [...document.querySelectorAll('#article h1, #article h2, #article p, #article li, #article td, #article th')];
      blocks.forEach((b, i) => { if (b.firstChild) b.firstChild.tformerMark = i; });
      window.clicks = 0;
      document.querySelector('#article .lead strong').addEventListener('click', () => window.clicks++);
    };
    const { page, failures, original, before: read } = await translatedPage(context, 'page.html', mark);
    const all = await readArticle(page);
    assert.equal(all.blocks.length, read.blocks.length);
    // The English sign in the German article is left as it is (no pair): the blocks translated.
    const sign = read.blocks.findIndex((b) => b.startsWith('A sign by the water'));
    assert.equal(all.blocks[sign], read.blocks[sign]);
    const before = { blocks: read.blocks.filter((_, i) => i !== sign) };
    const translated = { blocks: all.blocks.filter((_, i) => i !== sign) };
    assert.ok(!(await page.$('#article .tformer-translation')), 'the translation view shows the translation alone');

    // Hover: the original's text over the block, as text.
    await page.hover('#article p.lead');
    const tip = await page.evaluate(() => {
      const t = document.querySelector('.tformer-hover');
      return t && { text: t.textContent, lang: t.lang, elements: t.children.length };
    });
    const lead = before.blocks[1];
    assert.deepEqual(tip, { text: lead, lang: 'de', elements: 0 });
    await page.mouse.move(5, 5);
    assert.equal(await page.$('.tformer-hover'), null, 'gone when the pointer leaves');

    // Below: each block's original, its translation under it.
    await page.selectOption('#view', 'below');
    const below = await readPairs(page);
    assert.equal(below.length, before.blocks.length);
    below.forEach((p, i) => {
      assert.equal(p.view, 'below');
      assert.equal(p.original, before.blocks[i]);
      assert.equal(p.translation, translated.blocks[i]);
      assert.deepEqual([p.originalLang, p.translationLang], ['de', 'en']);
      assert.ok(p.translationBox.top >= p.originalBox.bottom - 1, `block ${i}: the translation is under the original`);
    });
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de', 'the page shows its original, with copies in English');
    await page.screenshot({ path: path.join(screenshots, 'page-bilingual-below.png') });
    // Beside: side by side.
    await page.selectOption('#view', 'beside');
    const beside = await readPairs(page);
    beside.forEach((p, i) => {
      assert.equal(p.view, 'beside');
      assert.equal(p.original, before.blocks[i]);
      assert.ok(p.translationBox.left >= p.originalBox.right - 1 && Math.abs(p.translationBox.top - p.originalBox.top) < 2,
        `block ${i}: the translation is beside the original`);
    });
    await page.screenshot({ path: path.join(screenshots, 'page-bilingual-beside.png') });
    // No hover tooltip in the bilingual views (the original is there).
    await page.hover('#article p.lead');
    assert.equal(await page.$('.tformer-hover'), null);
    // Back to the translation alone.
    await page.selectOption('#view', 'translation');
    assert.deepEqual((await readArticle(page)).blocks, all.blocks);
    assert.equal(await page.$('#article .tformer-translation'), null);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');

    // Show original: byte for byte, and the same nodes, listener included.
    await page.mouse.move(5, 5);
    await page.click('#original');
    assert.equal(await bodyHtml(page), original);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
    const marks = await page.evaluate(() => [...document.querySelectorAll('#article h1, #article h2, #article p, #article li, #article td, #article th')]
      .filter((b) => b.firstChild).every((b, i) => b.firstChild.tformerMark === i));
    assert.equal(marks, true, 'each block has its own first node back');
    await page.click('#article .lead strong');
    assert.equal(await page.evaluate(() => window.clicks), 1);
    assert.deepEqual(await failures(), []);
    await context.close();
  });

for (const kind of everywhere) test(`page demo in ${ENGINES[kind].label}: a page loaded again is answered by the translation memory (IndexedDB)`,
  { skip: engineSkip(kind), timeout: 600_000 }, async (t) => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1000, height: 5000 } });
    const failures = [];
    const first = await translatedPage(context, 'page.html');
    assert.equal(first.state.memoryHits, 0, 'an empty memory at first');
    assert.ok(first.state.sentences > 40, `${first.state.sentences} sentences`);
    const translated = await readArticle(first.page);
    failures.push(...await first.failures());
    await first.page.close();
    // The page loaded again: a new Translator (a new Worker), the memory read from IndexedDB.
    const second = await translatedPage(context, 'page.html');
    assert.equal(second.state.sentences, first.state.sentences);
    assert.equal(second.state.memoryHits, second.state.sentences, 'every sentence from the memory');
    assert.deepEqual((await readArticle(second.page)).blocks, translated.blocks, 'the same translation');
    assert.deepEqual(second.state.warnings.filter((w) => /memory/.test(w)), []);
    // Stored images damaged (cut short, and one not bytes at all): a warning, the page translated
    // by the model again, the memory rebuilt.
    await second.page.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('tformer-memory-v1');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('images', 'readwrite');
        const store = tx.objectStore('images');
        const keys = store.getAllKeys();
        keys.onsuccess = () => {
          for (const key of keys.result) store.put(new Uint8Array(100).fill(7), key);
          store.put('not an image', 'another model');
        };
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      };
    }));
    failures.push(...await second.failures());
    await second.page.close();
    const third = await translatedPage(context, 'page.html');
    assert.equal(third.state.memoryHits, 0);
    assert.ok(third.state.warnings.some((w) => /the stored translation memory was not used \(not a translation memory/.test(w)),
      third.state.warnings.join('; '));
    assert.deepEqual((await readArticle(third.page)).blocks, translated.blocks);
    t.diagnostic(`page translation: first load ${first.state.pageMs.toFixed(0)} ms (${first.state.sentences} sentences computed), ` +
      `second load ${second.state.pageMs.toFixed(0)} ms (${second.state.memoryHits} of ${second.state.sentences} from the memory), ` +
      `${(first.state.pageMs / second.state.pageMs).toFixed(1)}x`);
    assert.deepEqual([...failures, ...await third.failures()], []);
    await context.close();
  });

for (const kind of everywhere) test(`page demo in ${ENGINES[kind].label}: a hostile page: markup written as text stays text, no script runs`,
  { skip: engineSkip(kind), timeout: 600_000 }, async () => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1000, height: 3000 } });
    const hostile = () => {
      window.pwned = 0;
      const article = document.getElementById('article');
      // Text that reads like markup (escaped in the page's HTML), an attribute handler of the page's
      // own, and a script element of its own (inert after parsing, and left alone by translation).
      article.innerHTML = '<h1>Ein Tag am See</h1>' +
        '<p>Klicken Sie &lt;img src=x onerror="window.pwned=1"&gt; hier. Der Hund schläft.</p>' +
        '<p>Das ist &lt;script&gt;window.pwned=2&lt;/script&gt; ein Test.</p>' +
        '<p>Ein <b title="&quot;&gt;&lt;img src=x onerror=window.pwned=3&gt;">Mann</b> fährt &lt;/p&gt;&lt;iframe src=javascript:window.pwned=4&gt; Fahrrad.</p>' +
        '<p>Die Katze schläft.<script>window.pwned=5</script></p>';
    };
    const { page, failures, original } = await translatedPage(context, 'page.html', hostile);
    const elements = await page.evaluate(() => [...document.querySelectorAll('#article *')].map((e) => e.localName));
    assert.deepEqual(elements.filter((e) => !['h1', 'p', 'b', 'script'].includes(e)), [], `elements: ${elements.join(', ')}`);
    // The page's own script element, kept by the engine as it is (a parsed copy, which never runs).
    assert.equal(elements.filter((e) => e === 'script').length, 1);
    assert.equal(elements.filter((e) => e === 'b').length >= 1, true);
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => window.pwned), 0, 'no script ran');
    for (const view of ['below', 'beside', 'translation']) {
      await page.selectOption('#view', view);
      await page.hover('#article p:nth-of-type(1)');
      assert.equal(await page.evaluate(() => document.querySelectorAll('img, iframe').length), 0, view);
    }
    await page.mouse.move(5, 5);
    await page.click('#original');
    assert.equal(await bodyHtml(page), original);
    assert.equal(await page.evaluate(() => window.pwned), 0);
    assert.deepEqual(await failures(), []);
    await context.close();
  });

for (const kind of chromiumOnly) test('page demo with ?api=standard: the standard Translator of the polyfill translates the text runs; Show original restores the page',
  { skip: engineSkip(kind), timeout: 600_000 }, async () => {
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1000, height: 5000 } });  // every block in view
    const { page, failures, original, before, state } = await translatedPage(context, 'page.html?api=standard');
    assert.equal(state.api, 'standard');
    const after = await readArticle(page);
    const sign = before.blocks.findIndex((b) => b.startsWith('A sign by the water'));
    after.blocks.forEach((b, i) => (i === sign ? assert.equal(b, before.blocks[i], 'the English sign stays')
      : assert.notEqual(b, before.blocks[i], `block ${i} changed`)));
    // Plain text: no element made or removed, every link where it was.
    assert.deepEqual(after.hrefs, before.hrefs);
    assert.deepEqual(after.kept, before.kept);
    await page.click('#original');
    assert.equal(await bodyHtml(page), original);
    assert.deepEqual(await failures(), []);
    await context.close();
  });
