// translate(html, {html: true}) through the npm package: the table's end-to-end fragments keep
// their invariants (tests/wasm/html_cases.mjs) with the fixture model and the shipped de->en
// model; inline markup lands on the translated words; the options are checked like the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fixturePath, importPackage, repoRoot } from './helpers.mjs';
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
