// The browser engines of the tests (tests/web/helpers.mjs launchBrowser) and the package in each:
// - a browser that cannot be launched is named, with the reason, and never passes unseen: outside
//   CI its tests are skipped with that reason printed; in CI (CI set) they run and fail with it;
// - in each engine of the run (TFORMER_BROWSERS), on a page with and without COOP/COEP: the build
//   the package picks is the one expected of the engine (threads where it gives
//   SharedArrayBuffer, single-threaded in WebKitGTK, which gives a cross-origin-isolated page
//   none, and says why in info.warnings); translate() gives the native CLI's translation;
//   `for await` over translateStream() gives translate()'s sentences; the page API's error hooks
//   see what the page throws.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ENGINES, closeSharedBrowsers, engineSkip, expectedVariant, fixturePath, launchBrowser, nativeCli, requireDist,
  sharedBrowser, testedEngines, webDir } from './helpers.mjs';
import { serveStatic } from '../static_server.mjs';

let server = null;
after(async () => {
  await closeSharedBrowsers();
  server?.close();
});

test('a browser that cannot be launched is named, with the reason; in CI its tests fail instead of being skipped', async () => {
  for (const [kind, label] of [['chromium', 'Chromium'], ['firefox', 'Firefox ESR'], ['webkit', 'WebKitGTK']]) {
    await assert.rejects(launchBrowser(kind, { executablePath: `/nonexistent/${kind}` }),
      { message: `${label} cannot be launched: no /nonexistent/${kind}` });
  }
  await assert.rejects(launchBrowser('netscape'), { message: 'no browser engine "netscape" (the engines are chromium, firefox, webkit)' });
  const ci = process.env.CI;
  const browsers = process.env.TFORMER_BROWSERS;
  try {
    delete process.env.CI;
    assert.equal(engineSkip('firefox', ['no /usr/bin/firefox-esr (apt-get install firefox-esr)']),
      'Firefox ESR skipped: no /usr/bin/firefox-esr (apt-get install firefox-esr)');
    process.env.CI = 'true';
    assert.equal(engineSkip('firefox', ['no /usr/bin/firefox-esr (apt-get install firefox-esr)']), false, 'in CI a missing browser fails');
    process.env.TFORMER_BROWSERS = 'firefox,netscape';
    assert.throws(() => testedEngines(), { message: 'TFORMER_BROWSERS names netscape: the engines are chromium, firefox, webkit' });
    process.env.TFORMER_BROWSERS = 'webkit, firefox';
    assert.deepEqual(testedEngines(), ['webkit', 'firefox']);
    assert.deepEqual(testedEngines(['chromium', 'firefox']), ['firefox']);
  } finally {
    if (ci === undefined) delete process.env.CI; else process.env.CI = ci;
    if (browsers === undefined) delete process.env.TFORMER_BROWSERS; else process.env.TFORMER_BROWSERS = browsers;
  }
  // What this machine lacks, engine by engine (nothing in CI, which installs them all).
  for (const kind of Object.keys(ENGINES)) {
    const skip = engineSkip(kind);
    if (skip) console.log(skip);
  }
});

const TEXTS = ['Ein Mann fährt Fahrrad. Die Katze schläft.', 'Zwei Hunde spielen im Schnee.'];
const cliMissing = existsSync(nativeCli) ? [] : [`no native CLI at ${nativeCli} (cmake --build build)`];

// In the page: the package's translator, its translations, and the same texts streamed.
async function inPage({ texts }) {
  const PLAIN = { passthrough: false, repetitionGuard: false };
  const { Translator } = await import('/web/src/index.js');
  const t = await Translator.create({ model: '/model.tfm', cache: false });
  try {
    const results = await t.translate(texts, PLAIN);
    const streamed = [];
    for await (const s of t.translateStream(texts, PLAIN)) streamed.push({ paragraph: s.paragraph, index: s.index, text: s.text });
    return { info: { variant: t.info.variant, threads: t.info.threads, warnings: t.info.warnings },
      texts: results.map((r) => r.text), sentences: results.map((r) => r.sentences.map((s) => s.text)), streamed,
      environment: { crossOriginIsolated, sharedArrayBuffer: typeof SharedArrayBuffer, hardwareConcurrency: navigator.hardwareConcurrency } };
  } finally {
    t.dispose();
  }
}

for (const kind of testedEngines()) {
  for (const isolated of [true, false]) {
    const variant = expectedVariant(kind, isolated);
    test(`the package in a page in ${ENGINES[kind].label}, ${isolated ? 'with' : 'without'} COOP/COEP: the ${variant} build, ` +
      'the CLI\'s translations, for await over translateStream(), errors seen', { skip: engineSkip(kind, cliMissing), timeout: 300_000 }, async (t) => {
      requireDist();
      server ??= await serveStatic({
        routes: { '/web/': webDir, '/model.tfm': fixturePath('marian') },
        // The page's query decides, for the page and (through the Referer) what it loads.
        isolated: (req) => new URL(req.headers.referer ?? req.url, 'http://x').searchParams.get('isolated') !== '0',
      });
      const browser = await sharedBrowser(kind);
      const page = await browser.newPage();
      try {
        await page.goto(`${server.url}${isolated ? '' : '?isolated=0'}`);
        const r = await page.evaluate(inPage, { texts: TEXTS });
        t.diagnostic(`${browser.label} ${browser.version}: ${JSON.stringify(r.environment)}; ${r.info.variant} build, ${r.info.threads} thread(s)`);
        assert.equal(r.environment.crossOriginIsolated, isolated);
        assert.equal(r.info.variant, variant, `warnings: ${r.info.warnings.join('; ')}`);
        if (variant === 'single') assert.equal(r.info.threads, 1);
        const noSharedMemory = /this page is cross-origin isolated, but this browser gives it no SharedArrayBuffer: the single-threaded build runs/;
        assert.equal(r.info.warnings.some((w) => noSharedMemory.test(w)), isolated && r.environment.sharedArrayBuffer === 'undefined',
          r.info.warnings.join('; '));
        const cli = execFileSync(nativeCli, ['translate', '-m', fixturePath('marian'), '--no-passthrough', '--no-repetition-guard'],
          { input: `${TEXTS.join('\n')}\n`, encoding: 'utf8' }).split('\n').slice(0, TEXTS.length);
        assert.deepEqual(r.texts, cli);
        assert.deepEqual(r.streamed, r.sentences.flatMap((list, paragraph) => list.map((text, index) => ({ paragraph, index, text }))));
        // The page API sees an uncaught error and an unhandled rejection of the page.
        await page.evaluate(() => {
          setTimeout(() => { throw new Error('thrown by the page'); }, 0);
          Promise.reject(new Error('rejected by the page'));
        });
        await page.waitForTimeout(300);
        const errors = (await page.errors()).filter((e) => !/favicon|^Failed to load resource|\/tformer-mtr\./.test(e));  // the favicon's 404
        assert.equal(errors.length, 2, errors.join('; '));
        assert.ok(errors.some((e) => /thrown by the page/.test(e)) && errors.some((e) => /rejected by the page/.test(e)), errors.join('; '));
      } finally {
        await page.close();
      }
    });
  }
}
