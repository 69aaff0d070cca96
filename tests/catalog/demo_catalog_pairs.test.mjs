// The demo in headless Chromium with the local catalogue (local_catalog.mjs: fr->en, en->de, and
// fr->de through English, none of them with the other direction): a pivot pair's download size is
// the same number in its entry of the list, the progress bar and the engine line, and Swap is off for a pair the catalogue translates one way only.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { CHROMIUM, launchChromium, playwrightChromium, nativeCli } from '../web/helpers.mjs';
import { startLocalCatalog } from './local_catalog.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const chromium = playwrightChromium();
const reason = !existsSync(CHROMIUM) ? `no ${CHROMIUM}` : !chromium ? 'npm playwright-core is not installed in web/node_modules'
  : !existsSync(nativeCli) ? `no native CLI at ${nativeCli}` : false;

let catalog, server, browser;
before(async () => {
  if (reason) return;
  catalog = await startLocalCatalog();
  server = await startServer({ port: 0, quiet: true });
  browser = await launchChromium(chromium);
});
after(async () => {
  await browser?.close();
  await server?.close();
  await catalog?.close();
});

test('demo: a pivot pair\'s download size agrees in the list, the progress and the engine line; Swap is off one way',
  { skip: reason, timeout: 600e3 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const failures = [];
    page.on('pageerror', (e) => failures.push(e.message));
    const progress = [];
    await page.exposeFunction('noteProgress', (t) => progress.push(t));
    await page.goto(`${server.url}?sw=off&catalog=${encodeURIComponent(catalog.url)}`);
    await page.waitForFunction(() => document.body.dataset.catalog === 'ready', null, { timeout: 120e3 });
    await page.waitForFunction(() => ['ready', 'done'].includes(document.body.dataset.state), null, { timeout: 120e3 });
    await page.evaluate(() => new MutationObserver(() => window.noteProgress(document.getElementById('progress-text').textContent))
      .observe(document.getElementById('progress-text'), { childList: true, characterData: true, subtree: true }));
    const listed = /\(through English, ([\d.]+ MiB)\)$/.exec(await page.textContent('#direction option[value="catalog:fr-de"]'))?.[1];
    assert.ok(listed);
    await page.selectOption('#direction', 'catalog:fr-de');
    await page.waitForFunction(() => /catalog:fr-de/.test(document.getElementById('engine').textContent) &&
      ['ready', 'done'].includes(document.body.dataset.state), null, { timeout: 120e3 });
    const downloading = progress.map((t) => /^downloading the fr->en, en->de models: .* of ([\d.]+ MiB)$/.exec(t)?.[1]).filter(Boolean);
    assert.ok(downloading.length > 0, progress.join(' | '));
    const engine = await page.textContent('#engine');
    const shown = /\| model catalog:fr-de ([\d.]+ MiB) downloaded,/.exec(engine)?.[1];
    assert.deepEqual([shown, downloading.at(-1)], [listed, listed], engine);
    // No de -> fr in this catalogue: nothing to swap to.
    assert.equal(await page.isDisabled('#swap'), true);
    assert.deepEqual(failures, []);
    await context.close();
  });
