// The demo as a first-time user meets it, in headless Chromium (issue 22): typing at a normal pace
// restarts no engine, an error banner goes with the next success, swap carries the translation of
// the text typed (never an older one), long input shows progress and can be stopped, offline a
// model never downloaded says so and the page shows that no model is loaded, the model's
// variants (int8 / f16) are offered with their download sizes and the default follows eval.json,
// the model card is rendered, a note states the models' domain, labels stay with their controls
// on a phone and the heat map keeps its size (scrolling), each sentence of the heat map has its
// own colour scale, no request fails (favicon), and the engine is warmed up during the start.
// Screenshots go to build-web/screenshots/ (git-ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { browserTestProblems, launchChromium, fixturePath, nativeCli, playwrightChromium, repoRoot, requireDist, screenshots, webDir,
  withMetadata } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const shots = screenshots;
const chromium = playwrightChromium();
const problems = browserTestProblems(chromium);

// Test model folders made from the fixtures (random weights, fast): fx.deen with an int8 variant
// that eval.json makes the default, and fx.ende (the reverse direction, for swap).
const root = mkdtempSync(path.join(tmpdir(), 'tformer-demo-ux-'));
function modelFolder(name, from, to, files, rows) {
  const dir = path.join(root, 'models', name);
  mkdirSync(dir, { recursive: true });
  for (const [file, fixture] of Object.entries(files)) {
    writeFileSync(path.join(dir, file), withMetadata(readFileSync(fixturePath(fixture)), { name, source_language: from, target_language: to }));
  }
  if (rows) writeFileSync(path.join(dir, 'eval.json'), JSON.stringify({ rows }));
  writeFileSync(path.join(dir, 'README.md'), `# ${name}\n\nA **test** model.\n\n| set | BLEU |\n|---|---|\n| a | 1.0 |\n`);
  return dir;
}
const deen = modelFolder('fx.deen', 'de', 'en', { 'model.tfm': 'marian', 'model.int8.tfm': 'marian-int8' }, [
  { file: 'model.tfm', weights: 'f16', set: 'multi30k-test2016', search: 'greedy', bleu: 10.0, chrf: 30 },
  { file: 'model.int8.tfm', weights: 'int8', set: 'multi30k-test2016', search: 'greedy', bleu: 9.8, chrf: 30 },
]);
const ende = modelFolder('fx.ende', 'en', 'de', { 'model.tfm': 'tutorial' });
modelFolder('fx.other', 'de', 'en', { 'model.tfm': 'marian-ssru' });  // never opened before the offline check

let server, realServer, browser;
before(async () => {
  if (problems.length) return;
  requireDist();
  mkdirSync(shots, { recursive: true });
  server = await startServer({ port: 0, quiet: true, modelsRoot: root });
  realServer = await startServer({ port: 0, quiet: true });
  browser = await launchChromium(chromium);
});
after(async () => {
  await browser?.close();
  await server?.close();
  await realServer?.close();
  rmSync(root, { recursive: true, force: true });
});

function cli(modelFile, text) {
  return execFileSync(nativeCli, ['translate', '-m', modelFile, '--no-passthrough', '--no-repetition-guard'],
    { input: `${text}\n`, encoding: 'utf8' }).replace(/\n$/, '');
}

async function open(context, url) {
  const page = await context.newPage();
  const failures = [];
  page.on('pageerror', (e) => failures.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(m.text())) failures.push(m.text()); });
  // The relaxed-SIMD build is optional (web/scripts/build.mjs): without it, its probe may 404.
  const relaxedBuilt = existsSync(path.join(webDir, 'dist', 'tformer-mtr.wasm'));
  page.on('response', (r) => {
    if (r.status() >= 400 && (relaxedBuilt || !/\/tformer-mtr\./.test(r.url()))) failures.push(`HTTP ${r.status()} ${r.url()}`);
  });
  await page.goto(url);
  return { page, failures };
}

async function waitForState(page, state, timeout = 120_000) {
  await page.waitForFunction((s) => document.body.dataset.state === s || document.body.dataset.state === 'error', state, { timeout });
  const now = await page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').textContent }));
  assert.equal(now.state, state, `page state (error shown: ${now.error})`);
}

// Sets the source text as a paste would (one input event).
const setSource = (page, text) => page.evaluate((t) => {
  const s = document.getElementById('source');
  s.value = t;
  s.dispatchEvent(new Event('input'));
}, text);
const waitForOutputOf = (page, text, timeout = 60_000) => page.waitForFunction((t) => document.getElementById('output').dataset.source === t &&
  document.body.dataset.state === 'done', text, { timeout });

test('the shipped models: domain note, examples, folder names, rendered card, no failed request, warm start, typing restarts nothing',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async (t) => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    // ?plain: the model's own output, as the CLI gives it with --no-passthrough --no-repetition-guard.
    const { page, failures } = await open(context, `${realServer.url}?sw=off&plain`);
    await waitForState(page, 'done');
    const entry = await page.evaluate(() => window.demoEntry);
    const listed = realServer.registry.models.find((m) => m.id === entry.id);
    assert.ok(listed, `the page's model ${entry.id} is a registry id`);
    assert.ok(existsSync(path.join(repoRoot, 'models', entry.id)), 'the id is the model folder');
    assert.match(await page.textContent(`#direction option[value="${entry.id}"]`), new RegExp(`\\(${entry.id.replace('.', '\\.')}\\)$`));
    assert.match(await page.textContent('#engine'), new RegExp(`model ${entry.id.replace('.', '\\.')} `));
    // The note on what the models can do is visible beside the selector, without opening anything.
    assert.equal(await page.isVisible('#domain-note'), true);
    assert.match(await page.textContent('#domain-note'), /short everyday and caption-like sentences; news and Wikipedia-style sentences\s+give the gist, and long ones lose parts of their meaning/);
    // The example shown first is translated as the CLI does it (the file the page loaded).
    const example = await page.inputValue('#source');
    const modelFile = path.join(repoRoot, decodeURIComponent(new URL(entry.url).pathname));
    assert.ok(existsSync(modelFile), modelFile);
    assert.equal(await page.textContent('#output'), cli(modelFile, example));
    const examples = await page.$$eval('#examples button', (b) => b.map((x) => x.textContent));
    assert.ok(examples.length >= 3 && examples.includes(example), `examples: ${examples.join(' | ')}`);
    // Warm-up ran before the page said ready; the example then ran on a warm engine.
    const warm = await page.evaluate(() => ({ warmup: window.demoWarmupMs, timing: document.getElementById('timing').textContent }));
    assert.ok(warm.warmup > 0);
    t.diagnostic(`warm-up ${warm.warmup.toFixed(0)} ms; then the example: ${warm.timing}`);
    // The model card, rendered (no raw Markdown table rows).
    await page.click('#model-about summary');
    await page.waitForSelector('#model-card h3');
    const card = await page.evaluate(() => ({ tables: document.querySelectorAll('#model-card table').length, text: document.getElementById('model-card').textContent }));
    assert.ok(card.tables > 0, 'the card\'s tables are tables');
    assert.doesNotMatch(card.text, /\|---|^#/m);
    await page.screenshot({ path: path.join(shots, 'demo-ux-desktop.png'), fullPage: true });

    // Typing at 350 ms per key (longer than the 250 ms debounce): each pause translates the text
    // so far, and no running translation is killed: the engine is never restarted.
    const sentence = entry.from === 'de' ? 'Zwei Kinder spielen im Park, und ein Hund läuft über die große grüne Wiese.'
      : 'Two children are playing in the park, and a dog runs across the big green meadow.';
    await page.fill('#source', '');
    const before = await page.evaluate(() => window.demoTranslator.info.restarts);
    await page.locator('#source').pressSequentially(sentence, { delay: 350, timeout: 180_000 });  // 26 s of typing
    await waitForOutputOf(page, sentence);
    const after = await page.evaluate(() => ({ restarts: window.demoTranslator.info.restarts, translations: window.demoTranslations }));
    assert.equal(after.restarts - before, 0, 'no engine restart while typing');
    t.diagnostic(`typed ${sentence.length} characters at 350 ms per key: ${after.translations} translations, ${after.restarts - before} restarts`);
    assert.equal(await page.textContent('#output'), cli(modelFile, sentence));

    // Phone: each label on the line of its control, swap beside the direction, the heat map at
    // its natural size in a box that scrolls.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const small = await open(phone, `${realServer.url}?sw=off`);
    await waitForState(small.page, 'done');
    await setSource(small.page, sentence);
    await waitForOutputOf(small.page, sentence);
    const layout = await small.page.evaluate(() => {
      const box = (e) => e.getBoundingClientRect();
      const sameLine = (a, b) => Math.abs((box(a).top + box(a).bottom) / 2 - (box(b).top + box(b).bottom) / 2) < 6;
      const fields = [...document.querySelectorAll('.controls .field')].map((f) => {
        const label = f.querySelector('label'), control = f.querySelector('select');
        return { label: label.textContent, together: sameLine(label, control) };
      });
      const svg = document.querySelector('#heatmap svg'), map = document.getElementById('heatmap');
      return {
        fields,
        swapBeside: sameLine(document.getElementById('direction'), document.getElementById('swap')) &&
          box(document.getElementById('swap')).left >= box(document.getElementById('direction')).right,
        svgDrawn: box(svg).width, svgWidth: Number(svg.getAttribute('width')), scrolls: map.scrollWidth > map.clientWidth,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        // The text boxes first: both on the first screen, above the controls.
        panesTop: box(document.querySelector('.panes')).top, controlsTop: box(document.querySelector('.controls')).top,
        outputBottom: box(document.getElementById('output')).bottom, screen: window.innerHeight,
        // The direction's text whole: what it needs (its text in its font, and the arrow) within its width.
        directionNeeds: (() => {
          const select = document.getElementById('direction');
          const probe = Object.assign(document.createElement('span'), { textContent: select.selectedOptions[0].textContent });
          probe.style.font = getComputedStyle(select).font;
          probe.style.whiteSpace = 'pre';
          document.body.append(probe);
          const width = probe.getBoundingClientRect().width;
          probe.remove();
          return { text: select.selectedOptions[0].textContent, width, has: select.clientWidth };
        })(),
      };
    });
    for (const f of layout.fields) assert.ok(f.together, `"${f.label}" is on the line of its control`);
    assert.ok(layout.swapBeside, 'swap sits right of the direction selector');
    assert.ok(Math.abs(layout.svgDrawn - layout.svgWidth) < 1, `heat map drawn ${layout.svgDrawn}px for ${layout.svgWidth}px: not shrunk`);
    assert.ok(layout.scrolls || layout.svgWidth <= 390, 'a heat map wider than the screen scrolls');
    assert.ok(layout.overflow <= 0, `page is ${layout.overflow}px wider than the phone screen`);
    assert.ok(layout.panesTop < layout.controlsTop, 'the text boxes come before the controls');
    assert.ok(layout.outputBottom <= layout.screen, `the translation ends at ${layout.outputBottom}px, on the first screen (${layout.screen}px)`);
    // The arrow of a select takes about 20px.
    assert.ok(layout.directionNeeds.width + 20 <= layout.directionNeeds.has,
      `"${layout.directionNeeds.text}" needs ${layout.directionNeeds.width.toFixed(0)}px + the arrow, the selector has ${layout.directionNeeds.has}px`);
    await small.page.screenshot({ path: path.join(shots, 'demo-ux-phone-first-screen.png') });
    // Without ?plain the page passes numbers, emoji and links through: each comes out once.
    const kept = entry.from === 'de' ? 'Das Wetter ist ☀️ heute, der Eintritt kostet 12,50 € (siehe https://example.org/info).'
      : 'The weather is ☀️ today, the ticket costs 12.50 € (see https://example.org/info).';
    await setSource(small.page, kept);
    await waitForOutputOf(small.page, kept);
    const shown = await small.page.textContent('#output');
    for (const span of ['☀️', 'https://example.org/info']) {
      assert.equal(shown.split(span).length - 1, 1, `"${span}" once in "${shown}"`);
    }
    // A number is the model's to write, as the target language writes it; passthrough sees it there.
    assert.equal((shown.match(/12[.,]50/g) ?? []).length, 1, `the price once in "${shown}"`);
    // The search: 'auto' is beam 4 for a short text, greedy for a long one (?plain: greedy, as the CLI).
    assert.deepEqual(await small.page.evaluate(() => [document.getElementById('beam').value, window.demoBeamFor('Ein kurzer Satz.')]),
      ['auto', 4]);
    assert.equal(await small.page.evaluate(() => window.demoBeamFor('x'.repeat(5000))), 1);
    t.diagnostic(`passed through: "${kept}" -> "${shown}"`);
    await small.page.screenshot({ path: path.join(shots, 'demo-ux-phone.png'), fullPage: true });
    assert.deepEqual([...failures, ...small.failures], [], 'no failed request (the favicon included) and no error');
    await phone.close();
    await context.close();
  });

test('test models: error banner, swap while translating, variants, heat map scale per sentence, long input with progress and Stop, offline',
  { skip: problems.join('; ') || false, timeout: 600_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const { page, failures } = await open(context, `${server.url}?model=fx.deen&plain`);
    await waitForState(page, 'done');

    // Variants: int8 is the default (eval.json: within 0.5 BLEU), both offered with their sizes.
    const entry = server.registry.models.find((m) => m.id === 'fx.deen');
    const int8 = entry.variants.find((v) => v.weights === 'int8'), f16 = entry.variants.find((v) => v.weights === 'f16');
    assert.ok(int8.default);
    const options = await page.$$eval('#weights option', (o) => o.map((x) => [x.value, x.textContent]));
    assert.deepEqual(options.map(([v]) => v), ['int8', 'f16']);
    assert.match(options[0][1], /^int8, [\d.]+ MiB \(default\)$/);
    assert.match(options[1][1], /^f16, [\d.]+ MiB$/);
    assert.equal(await page.evaluate(() => window.translatorInfo.model.sha256), int8.sha256);
    await page.selectOption('#weights', 'f16');
    await page.waitForFunction((h) => window.translatorInfo?.model.sha256 === h && document.body.dataset.state === 'done', f16.sha256);
    assert.match(page.url(), /[?&]weights=f16/);

    // A failure (a lone surrogate) shows a banner; the next success removes it.
    await setSource(page, 'Hund \uD800 Katze');
    await page.waitForFunction(() => document.body.dataset.state === 'error');
    assert.match(await page.textContent('#error'), /Translation failed: input text 1 is not valid Unicode: lone UTF-16 surrogate at index 5/);
    await setSource(page, 'Hund Katze.');
    await waitForOutputOf(page, 'Hund Katze.');
    assert.equal(await page.isVisible('#error'), false, 'the banner went with the next success');

    // Paragraphs: blank lines come back as translate() gives them, in a short text and in one of
    // several calls of the stream.
    for (const text of [['Hund Katze.', 'Ein Mann fährt Fahrrad.', 'Warum?'].join('\n\n'),
      Array.from({ length: 6 }, (_, i) => `Der Hund Nummer ${i + 1} spielt im Garten. Die Katze schläft.`).join('\n\n')]) {
      await setSource(page, text);
      await waitForOutputOf(page, text);
      const [shown, whole] = await page.evaluate(async (t) => [document.getElementById('output').textContent,
        (await window.demoTranslator.translate(t, { passthrough: false, repetitionGuard: false })).text], text);
      assert.equal(shown, whole);
      assert.equal(shown.split('\n\n').length, text.split('\n\n').length, `blank lines kept: ${JSON.stringify(shown)}`);
    }
    // The text boxes say their languages; Copy puts the translation on the clipboard; Clear empties both.
    assert.deepEqual(await page.evaluate(() => [document.getElementById('source').lang, document.getElementById('output').lang]), ['de', 'en']);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.click('#copy');
    await page.waitForFunction(() => document.getElementById('copied').textContent === 'copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.textContent('#output'));
    await page.click('#clear');
    assert.equal(await page.inputValue('#source'), '');
    assert.equal(await page.textContent('#output'), '');
    assert.equal(await page.isDisabled('#copy'), true);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'source');

    // Two sentences: each has its own colour scale (its darkest cell fully dark).
    await setSource(page, 'Hund Katze spielen. Warum?');
    await waitForOutputOf(page, 'Hund Katze spielen. Warum?');
    const darkest = await page.$$eval('#heatmap rect.cell', (cells) => {
      const max = {};
      for (const c of cells) {
        const s = c.dataset.sentence;
        if (s !== '-1') max[s] = Math.max(max[s] ?? 0, Number(c.getAttribute('fill-opacity')));
      }
      return max;
    });
    assert.deepEqual(darkest, { 0: 1, 1: 1 });

    // Swap while the translation of a new text is still to come: the source becomes that
    // text's translation (as the CLI gives it), never the one shown before.
    const typed = 'Ein Mann fährt Fahrrad.';  // the fixture's translation of it is not empty
    await setSource(page, typed);
    await page.click('#swap');
    await page.waitForFunction(() => window.demoEntry?.id === 'fx.ende' && document.body.dataset.state === 'done');
    const f16File = path.join(deen, 'model.tfm');
    assert.equal(await page.inputValue('#source'), cli(f16File, typed), 'the source is the translation of the text typed');
    assert.equal(await page.inputValue('#direction'), 'fx.ende');
    assert.deepEqual(await page.evaluate(() => [document.getElementById('source').lang, document.getElementById('output').lang]), ['en', 'de']);
    assert.equal(await page.textContent('#output'), cli(path.join(ende, 'model.tfm'), cli(f16File, typed)));

    // Long input: results appear chunk by chunk with "translated N of M sentences"; Stop ends it.
    await page.selectOption('#direction', 'fx.deen');
    await waitForState(page, 'done');
    const long = 'Hund Katze spielen im Schnee. '.repeat(2000).trim();
    await setSource(page, long);
    await page.waitForFunction(() => Number(document.getElementById('work').dataset.done) > 0, null, { timeout: 60_000 });
    const progress = await page.evaluate(() => ({ text: document.getElementById('work-text').textContent, output: document.getElementById('output').textContent }));
    assert.match(progress.text, /^translated \d+ of 2000 sentences$/);
    assert.ok(progress.output.length > 0, 'results appear before the end');
    await page.click('#stop');
    await page.waitForFunction(() => /^stopped: \d+ of 2000 sentences translated$/.test(document.getElementById('work-text').textContent));
    assert.equal(await page.evaluate(() => document.body.dataset.state), 'done');
    await page.screenshot({ path: path.join(shots, 'demo-ux-stopped.png'), fullPage: true });
    // The page goes on after a stop.
    await setSource(page, 'Hund Katze.');
    await waitForOutputOf(page, 'Hund Katze.');

    // Offline: a model never downloaded says so, and the page shows that no model is loaded.
    await context.setOffline(true);
    await page.selectOption('#direction', 'fx.other');
    await page.waitForFunction(() => document.body.dataset.state === 'error');
    assert.match(await page.textContent('#error'), /^offline: this model \(fx\.other, f16 [\d.]+ MiB\) is not in the cache yet/);
    assert.equal(await page.textContent('#output'), '');
    assert.equal(await page.textContent('#timing'), '');
    assert.match(await page.textContent('#engine'), /^model fx\.other: not loaded$/);
    assert.equal(await page.textContent('#heatmap'), 'Nothing translated yet.');
    await page.screenshot({ path: path.join(shots, 'demo-ux-offline.png'), fullPage: true });
    await context.setOffline(false);
    assert.deepEqual(failures.filter((f) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(f)), []);
    await context.close();
  });
