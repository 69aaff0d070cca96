// translate(html, {html: true}) through the npm package: the table's end-to-end fragments keep
// their invariants (tests/wasm/html_cases.mjs) with the fixture model and the shipped de->en
// model; inline markup lands on the translated words; the options are checked like the others.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENGINES, closeSharedBrowsers, engineSkip, fixturePath, importPackage, repoRoot, sharedBrowser, testedEngines } from './helpers.mjs';
import { serveStatic } from '../static_server.mjs';
import { htmlCases, checkInvariants } from '../wasm/html_cases.mjs';

const { Translator } = await importPackage();
const shipped = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');

test('html: true keeps the markup of every end-to-end fragment (fixture model)', async () => {
  const tr = await Translator.create({ model: fixturePath('marian') });
  try {
    const results = await tr.translate(htmlCases.end_to_end, { html: true });
    results.forEach((r, i) => checkInvariants(assert, htmlCases.end_to_end[i], r.text));
    await assert.rejects(tr.translate('x', { html: 'yes' }), { name: 'TypeError', message: /option 'html' must be true or false/ });
    await assert.rejects(tr.translate('x', { html: true, htmlTranslateCode: 1 }),
      { name: 'TypeError', message: /option 'htmlTranslateCode' must be true or false/ });
    await assert.rejects(tr.translate('<b>'.repeat(300), { html: true }), /HTML elements nest deeper than 256/);
    // Off by default: markup is text like any other.
    const plain = await tr.translate('<pre>Hallo</pre>');
    assert.equal(plain.sentences.length, 1);
    assert.equal((await tr.translate('<pre>Hallo</pre>', { html: true })).text, '<pre>Hallo</pre>');
  } finally {
    tr.dispose();
  }
});

test('html: true on the shipped de->en model', { skip: !existsSync(shipped) && 'no models/tiny.deen/model.tfm' }, async (t) => {
  const tr = await Translator.create({ model: shipped });
  try {
    const results = await tr.translate(htmlCases.end_to_end, { html: true });
    results.forEach((r, i) => {
      checkInvariants(assert, htmlCases.end_to_end[i], r.text);
      t.diagnostic(`${htmlCases.end_to_end[i]} -> ${r.text}`);
    });
    // The words the model gives for "drei" and "Hund" carry their elements (when it says "three"
    // and "dog", as the shipped model does: a retrained model may say it otherwise).
    const em = (await tr.translate('<p>Ich habe <em>drei</em> Katzen.</p>', { html: true })).text;
    if ((await tr.translate('Ich habe drei Katzen.')).text.includes('three')) assert.match(em, /<em>three<\/em>/, em);
    const link = (await tr.translate('<p>Der <a href="/hund">Hund</a> schläft.</p>', { html: true })).text;
    if ((await tr.translate('Der Hund schläft.')).text.includes('dog')) assert.match(link, /<a href="\/hund">[^<]*dog[^<]*<\/a>/, link);
  } finally {
    tr.dispose();
  }
});

// Markup that browsers read otherwise than a naive scan (tests/fixtures/html/hostile.json: a '>'
// inside an end tag's quoted attribute, comments ending at "--!>", raw text, SVG, noscript...),
// translated by the package with the shipped model: each browser engine of the run, reading each
// output as innerHTML, finds only elements and attributes it finds in the input; the first
// fragment (an img with onerror inside attributes) runs no script (no dialog: the page's alert,
// confirm and prompt count their calls, and Chromium reports real dialogs too).
const hostile = JSON.parse(readFileSync(path.join(repoRoot, 'tests', 'fixtures', 'html', 'hostile.json'), 'utf8')).cases;
let outputs = null;
let server = null;
after(async () => {
  await closeSharedBrowsers();
  server?.close();
});

for (const kind of testedEngines()) {
  test(`html: true makes no markup that ${ENGINES[kind].label} did not see in the input`,
    { skip: (!existsSync(shipped) && 'no models/tiny.deen/model.tfm') || engineSkip(kind) }, async () => {
      if (!outputs) {
        const tr = await Translator.create({ model: shipped });
        try {
          outputs = (await tr.translate(hostile.map((c) => c.html), { html: true })).map((r) => r.text);
        } finally {
          tr.dispose();
        }
      }
      server ??= await serveStatic({ routes: {} });
      const browser = await sharedBrowser(kind);
      const page = await browser.newPage();
      try {
        let dialogs = 0;
        if (kind === 'chromium') page.raw.on('dialog', (d) => { dialogs += 1; d.dismiss(); });
        await page.goto(server.url);
        await page.evaluate(() => {
          document.body.innerHTML = '<div id="view"></div>';
          window.dialogs = 0;
          for (const name of ['alert', 'confirm', 'prompt']) window[name] = () => { window.dialogs += 1; };
        });
        // Each element as "namespace:name attribute=value ...", read by the engine's own parser.
        const elements = (html) => page.evaluate((h) => {
          const d = document.createElement('div');
          d.innerHTML = h;
          return [...d.querySelectorAll('*')].map((e) => [`${e.namespaceURI.split('/').pop()}:${e.localName}`,
            ...[...e.attributes].map((a) => `${a.name}=${a.value}`).sort()].join(' '));
        }, html);
        for (let i = 0; i < hostile.length; i++) {
          const before = new Set(await elements(hostile[i].html));
          const made = (await elements(outputs[i])).filter((e) => !before.has(e));
          assert.deepEqual(made, [], `${hostile[i].name}: ${hostile[i].html} -> ${outputs[i]}`);
        }
        // The inputs' own live imgs (read above) have raised their dialogs by now.
        await page.waitForTimeout(500);
        dialogs = 0;
        await page.evaluate(() => { window.dialogs = 0; });
        const shown = (html) => page.evaluate(async (h) => {
          document.getElementById('view').innerHTML = h;
          await new Promise((resolve) => setTimeout(resolve, 300));  // the img's error event
        }, html);
        await shown(hostile[0].html);
        await shown(outputs[0]);
        assert.equal(dialogs + await page.evaluate(() => window.dialogs), 0, `${hostile[0].html} -> ${outputs[0]}`);
      } finally {
        await page.close();
      }
    });
}
