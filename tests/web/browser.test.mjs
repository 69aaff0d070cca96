// The demo page end to end in each browser engine of the run (tests/web/helpers.mjs launchBrowser:
// Chromium, Firefox ESR, WebKitGTK): open it, wait for the model, type a sentence, compare the
// translation with the native CLI's, check the alignment heat map, take screenshots; once served
// with COOP/COEP (the relaxed-SIMD build where the engine validates relaxed SIMD and web/dist holds
// it, else the threaded one; single-threaded in WebKitGTK, which gives no SharedArrayBuffer, and
// says so in info.warnings) and once without (single-threaded fallback). Also: a second visit
// downloads no model, a damaged cached model is refused and downloaded again, the main thread
// keeps running during a long translation, and aborting a running translation in the browser
// stops it (Worker replaced). In Chromium also: the page works offline after the first visit, and
// fits a phone's screen (both need its emulation).
// Screenshots go to build-web/screenshots/ (git-ignored).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { closeSharedBrowsers, engineSkip, expectedVariant, nativeCli, repoRoot, requireDist, screenshots, sharedBrowser, testedEngines } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const SENTENCE = process.env.TFORMER_E2E_SENTENCE || 'Ein Mann fährt Fahrrad.';
const shots = screenshots;
const cliMissing = existsSync(nativeCli) ? [] : [`no native CLI at ${nativeCli} (cmake --build build)`];

function nativeTranslation(modelFile, text) {
  return execFileSync(nativeCli, ['translate', '-m', modelFile, '--no-passthrough', '--no-repetition-guard'],
    { input: `${text}\n`, encoding: 'utf8' }).replace(/\n$/, '');
}

after(closeSharedBrowsers);

const modelRequests = (requests) => [...requests].filter(([p]) => p.endsWith('.tfm')).reduce((n, [, c]) => n + c, 0);

async function waitForState(page, state, timeout = 120_000) {
  await page.waitForFunction((s) => document.body.dataset.state === s || document.body.dataset.state === 'error',
    state, { timeout });
  const now = await page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').textContent }));
  assert.equal(now.state, state, `page state (error shown: ${now.error})`);
}

for (const kind of testedEngines()) for (const isolation of [true, false]) {
  const mode = expectedVariant(kind, isolation);
  const name = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKitGTK' }[kind];
  const shot = (what) => path.join(shots, `demo-${kind === 'chromium' ? '' : `${kind}-`}${what}.png`);
  test(`demo in ${name}, ${isolation ? 'with' : 'without'} COOP/COEP: ${mode} build`, { skip: engineSkip(kind, cliMissing), timeout: 600_000 }, async (t) => {
    assert.deepEqual(cliMissing, []);
    requireDist();
    mkdirSync(shots, { recursive: true });
    const server = await startServer({ port: 0, isolation, quiet: true });
    const browser = await sharedBrowser(kind);
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    try {
      const page = await context.newPage();

      // First visit: the model downloads with progress, the example sentence is translated.
      // (?plain: the model's own output, as the CLI gives it: no pass-through, no loop guard.)
      const opened = Date.now();
      await page.goto(`${server.url}?plain`);
      await waitForState(page, 'done');
      const firstVisitMs = Date.now() - opened;
      const info = await page.evaluate(() => window.translatorInfo);
      assert.equal(info.variant, mode);
      assert.equal(info.crossOriginIsolated, isolation);
      assert.equal(info.backend, 'wasm');
      assert.equal(info.threads, mode === 'single' ? 1 : Math.min(4, await page.evaluate(() => navigator.hardwareConcurrency)));
      // A cross-origin-isolated page without SharedArrayBuffer (WebKitGTK) is told why it has no threads.
      const noSharedMemory = /this page is cross-origin isolated, but this browser gives it no SharedArrayBuffer/;
      assert.equal(info.warnings.some((w) => noSharedMemory.test(w)), isolation && kind === 'webkit', info.warnings.join('; '));
      assert.equal(info.load.fromCache, false);
      assert.equal(modelRequests(server.requests), 1, 'the model was downloaded once');
      const engineText = await page.textContent('#engine');
      assert.match(engineText, new RegExp(`^engine: wasm ${{ relaxed: 'relaxed-SIMD', threaded: 'threaded', single: 'single-threaded' }[mode]} build .*CPU kernels: XNNPACK`));

      // Type a sentence (key by key: the debounce cancels stale requests); compare with the CLI.
      const shown = await page.evaluate(() => window.demoEntry);
      const entry = server.registry.models.find((m) => m.id === shown.id);
      // The file the page loaded: the entry's default variant, or the one the URL picked.
      const modelFile = path.join(repoRoot, decodeURIComponent(new URL(shown.url).pathname));
      await page.fill('#source', '');
      await page.type('#source', SENTENCE, { delay: 25 });
      await page.waitForFunction((s) => document.getElementById('output').dataset.source === s && document.body.dataset.state === 'done',
        SENTENCE, { timeout: 60_000 });
      const output = await page.textContent('#output');
      const native = nativeTranslation(modelFile, SENTENCE);
      assert.equal(output, native, 'the page translates exactly as the native CLI');
      const timing = await page.textContent('#timing');
      t.diagnostic(`model ${entry.id}: "${SENTENCE}" -> "${output}"`);

      // The heat map: one cell per (target piece, source piece), with varying weights.
      const heat = await page.evaluate(() => {
        const cells = [...document.querySelectorAll('#heatmap rect.cell')];
        return {
          cells: cells.length,
          rows: document.querySelectorAll('#heatmap text.target-piece').length,
          cols: document.querySelectorAll('#heatmap text.source-piece').length,
          distinct: new Set(cells.map((c) => c.getAttribute('fill-opacity'))).size,
          rowSum: cells.slice(0, document.querySelectorAll('#heatmap text.source-piece').length)
            .reduce((s, c) => s + Number(c.dataset.weight), 0),
        };
      });
      assert.ok(heat.rows > 0 && heat.cols > 0, `heat map ${heat.rows} x ${heat.cols}`);
      assert.equal(heat.cells, heat.rows * heat.cols);
      assert.ok(heat.distinct > 1, 'cells are shaded by weight');
      assert.ok(Math.abs(heat.rowSum - 1) < 0.01, `a row sums to ${heat.rowSum}`);
      await page.screenshot({ path: shot(mode), fullPage: true });

      // Another direction/model from the selector: the old translator goes, the new one answers.
      const other = server.registry.models.find((m) => m.id !== entry.id);
      if (other) {
        await page.selectOption('#direction', other.id);
        await page.waitForFunction((id) => window.demoEntry?.id === id && document.body.dataset.state === 'done',
          other.id, { timeout: 120_000 });
        const now = await page.evaluate(() => ({ source: document.getElementById('output').dataset.source, text: document.getElementById('output').textContent,
          url: window.demoEntry.url }));
        assert.equal(now.text, nativeTranslation(path.join(repoRoot, decodeURIComponent(new URL(now.url).pathname)), now.source), `translation with ${other.id}`);
        assert.match(await page.url(), new RegExp(`[?&]model=${other.id.replace('.', '\\.')}`));
      }

      // In the page, through the package: a long translation does not block the main thread,
      // and aborting it while it runs stops it and restarts the engine.
      const inPage = await page.evaluate(async () => {
        const { Translator } = await import(new URL('../src/index.js', location.href).href);
        // The small test model whatever the registry lists: the point is the timing of an abort.
        const tr = await Translator.create({ model: new URL('../../tests/fixtures/marian/model.tfm', location.href).href, cache: false });
        const long = 'Hund Katze spielen im Schnee. '.repeat(1500);
        let ticks = 0, maxGap = 0, last = performance.now();
        const timer = setInterval(() => { const now = performance.now(); maxGap = Math.max(maxGap, now - last); last = now; ticks++; }, 10);
        const t0 = performance.now();
        await tr.translate(long);
        const fullMs = performance.now() - t0;
        clearInterval(timer);
        const controller = new AbortController();
        const t1 = performance.now();
        const running = tr.translate(long, { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        let aborted = null;
        try { await running; } catch (e) { aborted = e.name; }
        const abortMs = performance.now() - t1;
        const after = await tr.translate('Warum?');
        const restarts = tr.info.restarts;
        tr.dispose();
        return { fullMs, ticks, maxGap, aborted, abortMs, restarts, after: after.text, variant: tr.info.variant };
      });
      assert.equal(inPage.variant, mode);
      assert.ok(inPage.ticks > inPage.fullMs / 40, `main thread ticked ${inPage.ticks} times in ${inPage.fullMs.toFixed(0)} ms`);
      assert.ok(inPage.maxGap < 250, `longest main-thread gap ${inPage.maxGap.toFixed(0)} ms during a translation`);
      assert.equal(inPage.aborted, 'AbortError');
      assert.ok(inPage.abortMs < inPage.fullMs * 0.75, `abort after ${inPage.abortMs.toFixed(0)} ms, full run ${inPage.fullMs.toFixed(0)} ms`);
      assert.equal(inPage.restarts, 1);
      assert.equal(inPage.after, nativeTranslation(path.join(repoRoot, 'tests', 'fixtures', 'marian', 'model.tfm'), 'Warum?'));

      // Second visit (the page opened again, in the same browser context): the model comes from
      // the Cache API, no download.
      const before = modelRequests(server.requests);
      const again = page;
      const reopened = Date.now();
      await again.goto(`${server.url}?plain`);
      await waitForState(again, 'done');
      const secondVisitMs = Date.now() - reopened;
      const info2 = await again.evaluate(() => window.translatorInfo);
      assert.equal(info2.load.fromCache, true);
      assert.equal(modelRequests(server.requests), before, 'no model request on the second visit');

      // A damaged copy in the Cache API is refused (sha256 from the registry) and fetched again.
      const damaged = await again.evaluate(async () => {
        const cache = await caches.open('tformer-models-v1');
        const [request] = await cache.keys();
        const response = await cache.match(request);
        const bytes = new Uint8Array(await response.arrayBuffer());
        bytes[bytes.length - 1] ^= 0xff;
        await cache.put(request, new Response(bytes, { headers: response.headers }));
        return request.url;
      });
      assert.match(damaged, /\.tfm$/);
      const third = page;
      await third.goto(`${server.url}?plain`);
      await waitForState(third, 'done');
      assert.equal(modelRequests(server.requests), before + 1, 'the damaged model was downloaded again');
      assert.match(await third.textContent('#warnings'), /did not match its sha256 .* it was deleted and the model downloaded again/);
      assert.equal(await third.evaluate(() => window.translatorInfo.load.fromCache), false);

      if (kind === 'chromium') {
        // Offline after the first visit: the service worker has the page, the cache the model.
        await context.raw.setOffline(true);
        const offline = await context.newPage();
        await offline.goto(`${server.url}?plain`);
        await waitForState(offline, 'done');
        await offline.fill('#source', SENTENCE);
        await offline.waitForFunction((s) => document.getElementById('output').dataset.source === s && document.body.dataset.state === 'done', SENTENCE);
        assert.equal(await offline.textContent('#output'), native, 'offline translation');
        await context.raw.setOffline(false);
        assert.deepEqual((await offline.errors()).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|\/tformer-mtr\./.test(e)), []);

        // Phone-sized window: nothing wider than the screen.
        const phone = await browser.raw.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
        const small = await phone.newPage();
        await small.goto(`${server.url}?plain`);
        await small.waitForFunction(() => document.body.dataset.state === 'done', null, { timeout: 120_000 });
        const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `page is ${overflow}px wider than a phone screen`);
        await small.screenshot({ path: shot(`${mode}-phone`), fullPage: true });
        await phone.close();
      }

      // Requests that may fail here: the relaxed-SIMD build's probe (the build is optional), and
      // the demo's look at the catalogue online (no network; Chromium logs it as "Failed to load
      // resource", Firefox as a blocked cross-origin request).
      assert.deepEqual((await page.errors()).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource|favicon|\/tformer-mtr\.|^Cross-Origin Request Blocked/.test(e)), []);
      t.diagnostic(`${mode}: first visit ready in ${firstVisitMs} ms (engine ${info.load.totalMs} ms: model ${info.load.modelMs} ms, ` +
        `instantiate ${info.load.instantiateMs} ms, model into engine ${info.load.engineMs} ms), second visit ${secondVisitMs} ms ` +
        `(engine ${info2.load.totalMs} ms); "${SENTENCE}": ${timing}; 1500-sentence paragraph ${inPage.fullMs.toFixed(0)} ms, ` +
        `abort ${inPage.abortMs.toFixed(0)} ms; ${browser.label} ${browser.version}; screenshots in ${path.relative(repoRoot, shots)}`);
    } finally {
      await context.close();
      await server.close();
    }
  });
}
