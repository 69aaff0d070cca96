// Figures for docs/BENCHMARKS.md about the polyfill in headless Chromium (the setup of
// tests/web/wpt.test.mjs: the local catalogue with en->ja, the WPT server, real clicks):
//
//   memory    the browser's peak memory while the translator WPT file runs: the proportional set
//             size (PSS, /proc/PID/smaps_rollup) of every process of the browser, summed, sampled
//             every 100 ms, its highest sum;
//   requests  what 20 Translator.create() calls of one pair (en->ja) ask the catalogue's server for:
//             catalogue documents (the server's root and the records) and attachments (model files),
//             the 20 calls made at once and, in a fresh browser context, one after another.
//
// Usage: node tests/wpt/measure.mjs memory|requests [--web DIR]
//   --web DIR: serve the package from DIR instead of web/ (a checkout of other code, with its dist/)
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWptServer } from './server.mjs';
import { launchForWpt, wptContext, runTestPage } from './driver.mjs';
import { startJapaneseCatalog } from './local_catalog_ja.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const [what, ...rest] = process.argv.slice(2);
const webIndex = rest.indexOf('--web');
const webDir = webIndex >= 0 ? path.resolve(rest[webIndex + 1]) : path.join(repoRoot, 'web');
if (!['memory', 'requests'].includes(what) || (webIndex >= 0 && !rest[webIndex + 1])) {
  console.error('usage: node tests/wpt/measure.mjs memory|requests [--web DIR]');
  process.exit(2);
}

// Every process descended from `root` whose name is the browser's.
function browserProcesses(root) {
  const parents = new Map();
  const names = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out = [];
  for (const pid of parents.keys()) {
    for (let p = parents.get(pid); p; p = parents.get(p)) {
      if (p === root) {
        if (/chrom/i.test(names.get(pid) ?? '')) out.push(pid);
        break;
      }
    }
  }
  return out;
}

function pssKiB(pid) {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))[1]);
  } catch {
    return 0;
  }
}

const chromium = createRequire(path.join(repoRoot, 'web', 'package.json'))('playwright-core').chromium;
const catalogue = await startJapaneseCatalog();
const server = await startWptServer({ catalog: catalogue.url, webDir });
const browser = await launchForWpt(chromium, CHROMIUM);
try {
  console.log(`browser: ${browser.version()}; package: ${webDir}`);
  if (what === 'memory') {
    let peak = 0;
    const sample = () => {
      const sum = browserProcesses(process.pid).reduce((s, pid) => s + pssKiB(pid), 0);
      peak = Math.max(peak, sum);
    };
    const timer = setInterval(sample, 100);
    const context = await wptContext(browser);
    const outcome = await runTestPage(context, new URL('ai/translator/translator.optional.https.window.html', server.url).href);
    sample();
    clearInterval(timer);
    await context.close();
    const passed = outcome.tests.filter((t) => t.status === 'PASS').length;
    console.log(`translator WPT file: harness ${outcome.status}, ${passed}/${outcome.tests.length} subtests passed`);
    for (const t of outcome.tests.filter((x) => x.status !== 'PASS')) console.log(`  ${t.status}: ${t.name}: ${t.message}`);
    for (const e of outcome.errors) console.log(`  page error: ${e}`);
    console.log(`peak browser memory (PSS of all its processes): ${(peak / 1024).toFixed(0)} MiB`);
  } else {
    for (const mode of ['at once', 'one after another']) {
      const context = await wptContext(browser);
      const page = await context.newPage();
      await page.goto(new URL('tformer/blank.html', server.url).href);
      const before = catalogue.requests().length;
      const created = await page.evaluate(async ({ sequential, catalog }) => {
        const { install } = await import('/web/src/polyfill.js');
        for (const name of ['Translator', 'LanguageDetector']) delete globalThis[name];
        install({ catalog, force: true });
        await test_driver.bless('create translators');
        const options = { sourceLanguage: 'en', targetLanguage: 'ja' };
        const made = [];
        if (sequential) for (let i = 0; i < 20; ++i) made.push(await Translator.create(options));
        else made.push(...await Promise.all(Array.from({ length: 20 }, () => Translator.create(options))));
        const texts = await Promise.all(made.map((t) => t.translate('hello')));
        return texts.length;
      }, { sequential: mode !== 'at once', catalog: catalogue.url });
      const asked = catalogue.requests().slice(before);
      const documents = asked.filter((p) => p.startsWith('/v1')).length;
      const attachments = asked.filter((p) => p.startsWith('/attachments/')).length;
      console.log(`20 create() ${mode} (${created} translators): ${documents} catalogue requests, ${attachments} attachment requests`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
  await catalogue.close();
}
