// The browser vendors' web-platform-tests of the Translator and LanguageDetector APIs (tests/wpt/ai,
// unmodified) and an idlharness test of the spec's IDL (tests/wpt/tformer), run against the polyfill
// in headless Chromium: Chromium's own Translator and LanguageDetector are removed and the polyfill
// is installed with `force` (tests/wpt/server.mjs); test_driver.bless() is a real click
// (tests/wpt/driver.mjs). The models come from a local catalogue with an en->ja pair whose model is
// not Japanese: the subtests that check a Japanese translation word for word are the only expected
// failures, named below. One server, one browser; each group of files in a fresh browser context.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserTestProblems, CHROMIUM, playwrightChromium, requireDist } from './helpers.mjs';
import { startWptServer } from '../wpt/server.mjs';
import { launchForWpt, wptContext, runTestPage } from '../wpt/driver.mjs';
import { startJapaneseCatalog } from '../wpt/local_catalog_ja.mjs';

const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

// Each group runs in a context of its own, its files in this order: the detector's window file
// first asks for a detector that has never been downloaded (create() without user activation must
// reject), and the tentative file after it expects the one it downloaded (create() without user
// activation must succeed), as in a browser whose detector is installed. The .any.js file runs in a
// window and in a dedicated worker.
const GROUPS = {
  'language detector': [
    'ai/language_detection/detector.https.window.html',
    'ai/language_detection/detector.https.tentative.any.html',
    'ai/language_detection/detector.https.tentative.any.worker.html',
  ],
  translator: ['ai/translator/translator.optional.https.window.html'],
  idl: ['tformer/idlharness.https.window.html'],
};

// The subtests that need a model that translates 'hello' to exactly 'こんにちは'.
const EXPECTED_FAILURES = {
  'ai/translator/translator.optional.https.window.html': [
    'Simple Translator.translate() call',
    'Simple Translator.translateStreaming() call',
    'Translator.measureInputUsage() and inputQuota basic usage.',
  ],
};

let catalogue = null;
let server = null;
let browser = null;

before(async () => {
  if (problems.length) return;
  requireDist();
  catalogue = await startJapaneseCatalog();
  server = await startWptServer({ catalog: catalogue.url });
  browser = await launchForWpt(chromium, CHROMIUM);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await catalogue?.close();
});

function report(file, outcome) {
  const counts = {};
  for (const t of outcome.tests) counts[t.status] = (counts[t.status] ?? 0) + 1;
  const expected = EXPECTED_FAILURES[file] ?? [];
  const summary = Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(', ') || 'no subtests';
  console.log(`${file}: harness ${outcome.status}; ${outcome.tests.length} subtests: ${summary}` +
    (expected.length ? ` (${expected.length} expected to fail)` : ''));
  for (const t of outcome.tests) {
    if (t.status === 'PASS') continue;
    console.log(`  ${t.status}${expected.includes(t.name) ? ' (expected)' : ''}: ${t.name}${t.message ? `: ${t.message}` : ''}`);
  }
  if (outcome.message) console.log(`  harness: ${outcome.message}`);
  for (const e of outcome.errors) console.log(`  page error: ${e}`);
}

for (const [group, files] of Object.entries(GROUPS)) {
  test(`web-platform-tests in Chromium, on the polyfill: ${group}`, { timeout: 900_000 }, async () => {
    assert.deepEqual(problems, [], problems.join('; '));
    const context = await wptContext(browser);
    try {
      for (const file of files) {
        const outcome = await runTestPage(context, new URL(file, server.url).href);
        report(file, outcome);
        assert.equal(outcome.status, 'OK', `${file}: the harness ended in ${outcome.status}: ${outcome.message}`);
        assert.ok(outcome.tests.length > 0, `${file}: no subtests ran`);
        const expected = EXPECTED_FAILURES[file] ?? [];
        const unexpected = outcome.tests.filter((t) => (t.status === 'PASS') === expected.includes(t.name));
        assert.deepEqual(unexpected.map((t) => `${t.status}: ${t.name}`), [],
          `${file}: every subtest passes but the expected failures (${expected.join('; ') || 'none'}), which fail`);
        for (const name of expected) assert.ok(outcome.tests.some((t) => t.name === name), `${file}: no subtest named '${name}'`);
      }
    } finally {
      await context.close();
    }
  });
}
