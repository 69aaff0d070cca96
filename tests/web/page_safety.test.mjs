// translatePage on a page it did not write (tests/fixtures/pages/translate-page.html), in headless
// Chromium, with the package's Translator (the shipped de->en model, blocks as HTML) and with the
// polyfill's standard Translator (plain text runs), each through every view and restore():
// - no element or attribute appears that the live page did not have as one: markup inside
//   <noscript> (text to a page with scripts) and markup written as text stay text, and nothing runs;
// - the page's own nodes stay: typed values, a ticked box, a choice and a textarea's text survive
//   every view; listeners on a link and an emphasis fire on the same nodes; a frame is never
//   loaded again; the bilingual views add no id and no form field;
// - text a page's own script adds to a translated block survives setView() and restore();
// - style, xmp, code, a form's own text (option, button, textarea), translate="no",
//   class="notranslate" and an editable region are left as they are; an open shadow root is
//   translated (a closed one cannot be reached);
// - restore() gives back the page byte for byte.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserTestProblems, playwrightChromium, chromiumWithDemoServer } from './helpers.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

const env = chromiumWithDemoServer(problems);

const FIXTURE = '/tests/fixtures/pages/translate-page.html';

// In the page: the translator of `api`, and what the tests compare.
async function setUp(page, api) {
  await page.evaluate(async (which) => {
    const pkg = await import('/web/src/index.js');
    window.pkg = pkg;
    if (which === 'standard') {
      const { install } = await import('/web/src/polyfill.js');
      const { Translator } = install({ catalog: '/web/demo/registry.json', cache: false, force: true });
      window.translator = await Translator.create({ sourceLanguage: 'de', targetLanguage: 'en' });
    } else {
      window.translator = await pkg.Translator.create({ model: '/models/tiny.deen/model.int8.tfm' });
    }
    // Every element of the page (shadow roots too) with its attributes, by identity.
    window.inventory = () => {
      const out = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          out.push(el);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      return out;
    };
    window.own = (el) => !!el.closest('.tformer-translation, .tformer-hover, #tformer-page-style');
    window.attributes = (el) => [...el.attributes].map((a) => `${a.name}=${a.value}`).sort().join(' ');
    window.original = new Map(window.inventory().map((el) => [el, window.attributes(el)]));
    window.formState = () => {
      const f = document.getElementById('form');
      return { data: [...new FormData(f).entries()].map(([k, v]) => `${k}=${v}`), fields: f.elements.length,
        comment: document.getElementById('comment').value, choice: document.getElementById('choice').selectedIndex };
    };
    window.check = () => {
      const added = [];
      const changed = [];
      for (const el of window.inventory()) {
        if (window.own(el)) continue;
        if (!window.original.has(el)) added.push(el.outerHTML.slice(0, 80));
        else if (window.original.get(el) !== window.attributes(el)) changed.push(`${el.localName}: ${window.attributes(el)}`);
      }
      const ids = [...document.querySelectorAll('[id]')].map((el) => el.id);
      return { added, changed, pwned: window.fixture.pwned, duplicateIds: ids.filter((id, i) => ids.indexOf(id) !== i),
        form: window.formState(), frameLoads: window.fixture.frameLoads,
        imgs: document.querySelectorAll('img').length };
    };
  }, api);
}

const text = (page, selector) => page.$eval(selector, (el) => el.textContent.replace(/\s+/g, ' ').trim());

for (const api of ['package', 'standard']) {
  test(`translatePage (${api} Translator): no markup made live, the page's nodes and state kept, text that is not prose left alone`,
    { skip: problems.join('; ') || false, timeout: 300_000 }, async (t) => {
      const context = await env.browser.newContext();
      const page = await context.newPage();
      const failures = [];
      page.on('pageerror', (e) => failures.push(e.message));
      page.on('dialog', (d) => { failures.push(`dialog: ${d.message()}`); d.dismiss(); });
      await page.goto(new URL(FIXTURE, env.server.url).href);
      await page.waitForFunction(() => window.fixture?.frameLoads === 1);
      await setUp(page, api);
      const pristine = await page.evaluate(() => document.body.innerHTML);
      const texts = {};
      for (const id of ['title', 'noscript', 'text-markup', 'link', 'stamp', 'draft', 'cell', 'xmp', 'code', 'no', 'notranslate',
        'form-name', 'form-choice', 'form-button']) texts[id] = await text(page, `#${id}`);
      const shadowBefore = await page.evaluate(() => document.getElementById('open-host').shadowRoot.textContent.trim());
      const styleBefore = await page.$eval('#cell-style', (el) => el.textContent);
      const noscriptBefore = await page.$eval('#noscript noscript', (el) => el.innerHTML);

      // The user's state before the translation.
      await page.fill('#name', 'Alice');
      await page.check('#ok');
      await page.selectOption('#choice', '2');
      await page.fill('#comment', 'Mein Entwurf');
      const state = await page.evaluate(() => window.formState());
      assert.deepEqual(state.data, ['name=Alice', 'ok=on', 'comment=Mein Entwurf', 'choice=2']);

      await page.evaluate(async () => {
        window.round = window.pkg.translatePage(document.getElementById('root'), { translator: window.translator, lazy: false });
        window.progress = await window.round.done;
      });
      const progress = await page.evaluate(() => ({ ...window.progress, error: window.progress.error?.message ?? null }));
      assert.equal(progress.error, null);
      assert.equal(progress.translated, progress.blocks);

      // Translated: the prose, and the open shadow root.
      for (const id of ['title', 'noscript', 'link', 'stamp', 'cell']) {
        assert.notEqual(await text(page, `#${id}`), texts[id], `#${id} is translated`);
      }
      t.diagnostic(`#link: ${texts.link} -> ${await text(page, '#link')}`);
      t.diagnostic(`#noscript: ${texts.noscript} -> ${await text(page, '#noscript')}`);
      assert.notEqual(await page.evaluate(() => document.getElementById('open-host').shadowRoot.textContent.trim()), shadowBefore,
        'the open shadow root is translated');
      // Left alone.
      for (const id of ['draft', 'no', 'notranslate']) assert.equal(await text(page, `#${id}`), texts[id], `#${id} is left alone`);
      assert.equal(await page.$eval('#cell-style', (el) => el.textContent), styleBefore, 'a <style> is not translated');
      assert.equal(await page.$eval('#xmp xmp', (el) => el.textContent), '<b>Zug</b>');
      assert.equal(await page.$eval('#code code', (el) => el.textContent), 'Datei');
      assert.deepEqual(await page.$$eval('#choice option', (os) => os.map((o) => o.textContent)), ['Eins', 'Zwei']);
      assert.equal(await page.$eval('#send', (el) => el.textContent), 'Jetzt senden');
      assert.equal(await page.$eval('#noscript noscript', (el) => el.innerHTML), noscriptBefore, 'the noscript is as it was');

      for (const view of ['translation', 'below', 'beside', 'translation', 'original', 'beside']) {
        await page.evaluate((v) => window.round.setView(v), view);
        const c = await page.evaluate(() => window.check());
        assert.deepEqual(c.added, [], `${view}: elements the page did not have`);
        assert.deepEqual(c.changed, [], `${view}: attributes changed`);
        assert.equal(c.pwned, false, `${view}: a handler ran`);
        assert.equal(c.imgs, 0, `${view}: an <img> was made`);
        assert.deepEqual(c.duplicateIds, [], `${view}: duplicate ids`);
        assert.deepEqual(c.form, state, `${view}: the form's state`);
        assert.equal(c.frameLoads, 1, `${view}: the frame loaded again`);
        // Listeners fire on the page's own nodes.
        await page.evaluate(() => { document.getElementById('here').click(); document.getElementById('bold').click(); });
      }
      assert.deepEqual(await page.evaluate(() => [window.fixture.clicks, window.fixture.boldClicks]), [6, 6]);
      if (api === 'package') {
        // The bilingual copy holds text and formatting: a link, no form field, no frame.
        await page.evaluate(() => window.round.setView('below'));
        const copy = await page.$eval('#form-name .tformer-translation', (el) => el.innerHTML);
        assert.doesNotMatch(copy, /<input|<label|id=/, copy);
        assert.match(await page.$eval('#link .tformer-translation', (el) => el.innerHTML), /<a href="#hilfe">/);
        assert.doesNotMatch(await page.$eval('#frame .tformer-translation', (el) => el.innerHTML), /iframe/);
      }

      // restore(): the page byte for byte, the form's state, one frame load.
      await page.evaluate(() => window.round.restore());
      assert.equal(await page.evaluate(() => document.body.innerHTML), pristine);
      assert.deepEqual(await page.evaluate(() => window.formState()), state);
      assert.equal(await page.evaluate(() => window.fixture.frameLoads), 1);

      // Text the page's script adds to a block while it is translated survives setView and restore.
      await page.evaluate(async () => {
        window.round = window.pkg.translatePage(document.getElementById('root'), { translator: window.translator, lazy: false });
        await window.round.done;
        document.getElementById('stamp').append(' (read 09:14)');
        document.getElementById('title').firstChild.data = 'Neuer Titel vom Skript.';
        window.round.setView('below');
        window.round.setView('translation');
      });
      assert.match(await text(page, '#stamp'), /\(read 09:14\)$/);
      assert.equal(await text(page, '#title'), 'Neuer Titel vom Skript.');
      await page.evaluate(() => window.round.restore());
      assert.match(await text(page, '#stamp'), /^Die Nachricht wurde gestern gelesen\. \(read 09:14\)$/);
      assert.equal(await text(page, '#title'), 'Neuer Titel vom Skript.');
      const c = await page.evaluate(() => window.check());
      assert.deepEqual(c.added, []);
      assert.equal(c.pwned, false);
      assert.deepEqual(failures, []);
      await context.close();
    });
}
