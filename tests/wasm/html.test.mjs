// HTML translation through the wasm module (both variants): the table of hand-checked projections
// (tests/fixtures/html/cases.json, as tests/core/test_html.cc runs it natively) through
// Module.projectHtml, and the end-to-end fragments translated with `html: true` by the fixture
// model, checked by their invariants.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadVariant, fixture, options } from './load_module.mjs';
import { htmlCases, blocksOf, checkInvariants } from './html_cases.mjs';

const modules = {};
const translators = [];
after(() => {
  for (const t of translators) if (!t.isDeleted()) t.delete();
  for (const m of Object.values(modules)) m.PThread?.terminateAllThreads();
});

for (const variant of ['st', 'mt']) {
  test(`${variant}: the projection table`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    for (const c of htmlCases.projection) {
      const out = M.projectHtml(c.html, blocksOf(c), false);
      assert.equal(out, c.expected, c.name);
      checkInvariants(assert, c.html, out);
    }
    assert.deepEqual(M.htmlBlockTexts('<p>a &amp; b</p><pre>c</pre>', false), ['a & b']);
    assert.deepEqual(M.htmlBlockTexts('<p>a &amp; b</p><pre>c</pre>', true), ['a & b', 'c']);
    assert.throws(() => M.projectHtml('<p>a</p>', [[{ source: 'b', target: 'x' }]], false),
      /projectHtml\(\): project_html: block 0, sentence 0: its source is not the next text of the block/);
    assert.throws(() => M.projectHtml('<p>a</p>', [[{ source: 'a', target: 'x', alignment: ['0'] }]], false),
      /projectHtml\(\): block 0, sentence 0: alignment must be an array of integers/);
    assert.throws(() => M.projectHtml('<p>a</p>', 'x', false), /projectHtml\(\): blocks must be an array/);
    assert.throws(() => M.htmlBlockTexts('<i>'.repeat(300), false), /htmlBlockTexts\(\): HTML elements nest deeper than 256/);
    // Still usable after the errors.
    assert.equal(M.projectHtml('<p>a</p>', [[{ source: 'a', target: 'x' }]], false), '<p>x</p>');
  });

  test(`${variant}: translate with html: true keeps the invariants (fixture model)`, async () => {
    const M = (modules[variant] ??= await loadVariant(variant));
    const t = new M.Translator(new Uint8Array(readFileSync(fixture('marian', 'model.tfm'))), 1);
    translators.push(t);
    const results = t.translate(htmlCases.end_to_end, options({ html: true, htmlTranslateCode: false }));
    assert.equal(results.length, htmlCases.end_to_end.length);
    results.forEach((r, i) => {
      checkInvariants(assert, htmlCases.end_to_end[i], r.text);
      for (const s of r.sentences) assert.equal(s.alignment, undefined, 'the alignment only when asked for');
    });
    assert.throws(() => t.translate(['<p>ok</p>', '<i>'.repeat(300)], options({ html: true, htmlTranslateCode: false })),
      /input text 2 cannot be read as HTML: HTML elements nest deeper than 256/);
    // Nesting up to the limit is fine (no stack overflow in wasm's smaller stack), for block
    // elements (each a container) as for inline ones.
    for (const tag of ['div', 'span']) {
      const deep = `<${tag}>`.repeat(255) + 'Hallo <i>Welt</i>' + `</${tag}>`.repeat(255);
      const [r] = t.translate([deep], options({ html: true, htmlTranslateCode: false }));
      checkInvariants(assert, deep, r.text);
    }
    // Code translated on request: a block more to translate.
    const [kept] = t.translate(['<pre>Hallo</pre>'], options({ html: true, htmlTranslateCode: false }));
    assert.equal(kept.text, '<pre>Hallo</pre>');
    assert.equal(kept.sentences.length, 0);
    const [translated] = t.translate(['<pre>Hallo</pre>'], options({ html: true, htmlTranslateCode: true }));
    assert.equal(translated.sentences.length, 1);
  });
}
