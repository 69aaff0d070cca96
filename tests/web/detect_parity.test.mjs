// The detector gives the same answers everywhere: the native CLI (`tformer detect --all`, Debian's
// libcld2), the package in Node and the wasm build in Chromium (CLD2 built from Debian's source),
// on a FLORES-200 dev sample of 52 languages (tests/fixtures/langid), whole sentences and their
// first 20 characters. Same languages in the same order, confidences equal to 1e-9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { browserTestProblems, fixturePath, launchChromium, nativeCli, playwrightChromium, requireDist, webDir } from './helpers.mjs';
import { startServer } from '../../web/scripts/serve.mjs';

const sample = readFileSync(fixturePath('langid', 'flores200-dev-sample.tsv'), 'utf8').trimEnd().split('\n').map((l) => l.split('\t')[2]);
const texts = [...sample, ...sample.map((s) => [...s].slice(0, 20).join(''))];

function cliResults() {
  const out = execFileSync(nativeCli, ['detect', '--all'], { input: `${texts.join('\n')}\n`, encoding: 'utf8' });
  return out.replace(/\n$/, '').split('\n').map((line) => {
    const f = line.split('\t');
    const ranked = [];
    for (let i = 0; i < f.length; i += 2) ranked.push({ detectedLanguage: f[i], confidence: Number(f[i + 1]) });
    return ranked;
  });
}

function same(a, b, where) {
  assert.equal(a.length, b.length, `${where}: ${a.length} results and ${b.length}`);
  let differ = 0;
  a.forEach((ra, i) => {
    const rb = b[i];
    const ok = ra.length === rb.length && ra.every((x, k) => x.detectedLanguage === rb[k].detectedLanguage &&
      Math.abs(x.confidence - rb[k].confidence) < 1e-9);
    if (!ok && differ++ < 5) console.log(`${where}: ${JSON.stringify(texts[i])}\n  ${JSON.stringify(ra)}\n  ${JSON.stringify(rb)}`);
  });
  assert.equal(differ, 0, `${where}: ${differ} of ${a.length} texts differ`);
}

// The CLI writes 6 significant digits; CLD2's confidences are whole percentages, so they print exactly.
test('the native CLI and the package in Node detect alike on 52 languages', async () => {
  requireDist();
  const { detectLanguage } = await import(path.join(webDir, 'src', 'index.js'));
  const node = [];
  for (const t of texts) node.push((await detectLanguage(t)).ranked);
  same(cliResults(), node, 'CLI vs Node');
  // Not a vacuous agreement: most whole sentences are detected as some language.
  assert.ok(node.slice(0, sample.length).filter((r) => r[0].detectedLanguage !== 'und').length > sample.length * 0.9);
});

test('the wasm build in Chromium detects as the CLI does', { timeout: 300_000 }, async () => {
  const chromium = playwrightChromium();
  const problems = browserTestProblems(chromium);
  assert.deepEqual(problems, [], problems.join('; '));
  requireDist();
  const server = await startServer({ port: 0, isolation: false, quiet: true });
  const browser = await launchChromium(chromium);
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(new URL('registry.json', server.url).href);
    const browserResults = await page.evaluate(async (list) => {
      const { detectLanguage } = await import('/web/src/index.js');
      const out = [];
      for (const t of list) out.push((await detectLanguage(t)).ranked);
      return out;
    }, texts);
    same(cliResults(), browserResults, 'CLI vs Chromium');
  } finally {
    await browser.close();
    await server.close();
  }
});
