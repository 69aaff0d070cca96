// The package in an app built by each common bundler, with the bundler's defaults and no
// configuration: the packed tarball (npm pack of a copy of web/, as the package's own folder) is
// installed into a fresh app per bundler whose code is web/README.md's browser example as it
// stands; Vite (build and dev server), webpack 5 (production), esbuild (--bundle --format=esm) and
// Rollup (with @rollup/plugin-node-resolve) build it, one static server serves every build, and
// headless Chromium runs each: it must print the example's translation of the model the README
// names (as the native CLI translates it), with the threaded build (relaxed SIMD) and its threads
// on a cross-origin-isolated page and the single-threaded build without COOP/COEP. Also: Node
// imports the installed package, and a Vite SSR build of it runs in Node.
// The bundlers are tests/bundlers/package.json's (npm ci there; .ci/run does it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveStatic } from '../static_server.mjs';
import { repoRoot, webDir, nativeCli, CHROMIUM, playwrightChromium, launchChromium } from '../web/helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = (tool) => path.join(here, 'node_modules', '.bin', tool);
const TOOLS = ['vite', 'webpack', 'esbuild', 'rollup'];
const scratch = mkdtempSync(path.join(tmpdir(), 'tformer-bundlers-'));
after(() => { if (!process.env.KEEP_BUNDLER_APPS) rmSync(scratch, { recursive: true, force: true }); });

// web/README.md's browser example: the first js block after "In a browser, `model` is a URL".
function readmeBrowserExample() {
  const readme = readFileSync(path.join(webDir, 'README.md'), 'utf8');
  const at = readme.indexOf('In a browser, `model` is a URL');
  assert.ok(at >= 0, 'web/README.md has its browser example ("In a browser, `model` is a URL")');
  const code = /```js\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  assert.ok(code?.includes("from 'tformer-wasm'"), `the browser example imports 'tformer-wasm': ${code}`);
  const model = /model: '([^']+)'/.exec(code)?.[1];
  const sentence = /translate\('([^']+)'\)/.exec(code)?.[1];
  assert.ok(model && sentence, `the browser example names a model URL and a sentence: ${code}`);
  return { code, model, sentence };
}

const example = readmeBrowserExample();
// The model the example's URL names, from the repository (models/...), served at that URL.
const modelFile = path.join(repoRoot, ...new URL(example.model, 'http://x').pathname.split('/').filter(Boolean));

const problems = [
  ...TOOLS.filter((t) => !existsSync(bin(t))).map((t) => `no ${t} in tests/bundlers/node_modules (npm ci in tests/bundlers)`),
  !existsSync(CHROMIUM) && `no ${CHROMIUM} (apt-get install chromium)`,
  !playwrightChromium() && 'npm playwright-core is not installed in web/node_modules (npm ci in web/)',
  !existsSync(nativeCli) && `no native CLI at ${nativeCli} (cmake --build build)`,
  !existsSync(modelFile) && `no ${path.relative(repoRoot, modelFile)}, the model the README's example loads`,
  !existsSync(path.join(webDir, 'dist', 'tformer-st.wasm')) && 'web/dist has no wasm build (npm run build in web/)',
].filter(Boolean);

function run(command, args, cwd, env = {}) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } });
  } catch (e) {
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed in ${cwd}:\n${e.stdout}\n${e.stderr}`, { cause: e });
  }
}

let tarball = null;
const apps = {};  // tool -> the app's folder
const built = {};  // tool -> what its build wrote on stdout and stderr

before(() => {
  if (problems.length) throw new Error(`the bundler tests cannot run: ${problems.join('; ')}`);
});

test('npm pack works in a copy of web/ outside the repository', { timeout: 180_000 }, (t) => {
  const copy = path.join(scratch, 'web');
  mkdirSync(copy);
  for (const f of ['package.json', 'README.md', 'src', 'dist', 'types', 'scripts']) cpSync(path.join(webDir, f), path.join(copy, f), { recursive: true });
  // What a package's folder holds (web/ has them after `npm run build`): the repository's.
  for (const f of ['LICENSE', 'THIRD_PARTY_NOTICES']) cpSync(path.join(repoRoot, f), path.join(copy, f));
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch, '--loglevel=error'], copy));
  const files = packed.files.map((f) => f.path);
  for (const f of ['LICENSE', 'THIRD_PARTY_NOTICES', 'src/worker.js', 'dist/tformer-mtr.wasm', 'dist/tformer-mt.worker.js']) {
    assert.ok(files.includes(f), `the tarball has ${f}`);
  }
  tarball = path.join(scratch, packed.filename);
  t.diagnostic(`${packed.filename}: ${files.length} files, ${(packed.size / 1048576).toFixed(1)} MiB`);
});

// A fresh app per bundler: package.json, src/index.js (the README's example), the tarball installed.
function makeApp(tool, page) {
  assert.ok(tarball, 'the package was packed');
  const app = path.join(scratch, tool);
  mkdirSync(path.join(app, 'src'), { recursive: true });
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: `app-${tool}`, private: true, type: 'module' }, null, 2));
  writeFileSync(path.join(app, 'src', 'index.js'), example.code);
  if (page) writeFileSync(path.join(app, 'index.html'), `<!doctype html>\n<html><head><meta charset="utf-8"><title>app</title></head>` +
    `<body>${page}</body></html>\n`);
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], app);
  apps[tool] = app;
  return app;
}

const BUILDS = {
  // index.html at the root, as Vite wants it; `vite build` writes dist/ (assets under /assets/).
  vite: { page: '<script type="module" src="/src/index.js"></script>', args: ['build'] },
  // webpack's defaults: src/index.js -> dist/main.js, a classic script.
  webpack: { page: '<script src="dist/main.js"></script>', args: ['--mode', 'production'] },
  esbuild: { page: '<script type="module" src="dist/index.js"></script>', args: ['src/index.js', '--bundle', '--format=esm', '--outdir=dist'] },
  // The plugin from tests/bundlers/node_modules (NODE_PATH), as an app's devDependency would be.
  rollup: { page: '<script type="module" src="dist/index.js"></script>', args: ['src/index.js', '-p', 'node-resolve', '-d', 'dist'],
    env: { NODE_PATH: path.join(here, 'node_modules') } },
};

for (const [tool, build] of Object.entries(BUILDS)) {
  test(`${tool} builds the README's example with its defaults`, { timeout: 180_000 }, (t) => {
    const app = makeApp(tool, build.page);
    const started = Date.now();
    const out = run(bin(tool), build.args, app, build.env);
    built[tool] = out;
    t.diagnostic(`${tool} ${build.args.join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // What the package once made them say: a file left unresolved, an import they could not resolve.
    assert.doesNotMatch(out, /doesn't exist at build time|Could not resolve|Unresolved dependencies|Module not found|ERROR/, out);
    if (tool === 'esbuild') assert.doesNotMatch(out, /\[WARNING\]/, out);
  });
}

// The wasm builds of the installed package, by content: which one a page fetched, whatever the
// bundler named it.
function wasmBuilds() {
  const dist = path.join(apps.vite ?? Object.values(apps)[0], 'node_modules', 'tformer-wasm', 'dist');
  return new Map(readdirSync(dist).filter((f) => f.endsWith('.wasm'))
    .map((f) => [createHash('sha256').update(readFileSync(path.join(dist, f))).digest('hex'), f]));
}

let expectedText = null;
function cliTranslation() {
  expectedText ??= execFileSync(nativeCli, ['translate', '-m', modelFile], { input: `${example.sentence}\n`, encoding: 'utf8' }).trim();
  return expectedText;
}

/**
 * Opens `url` in `context` and waits for the example's console line. Resolves to what it saw:
 * {printed, wasm: [the dist files fetched], workers, isolated, failures: [HTTP errors, page errors]}.
 */
async function runExample(context, url, builds) {
  const page = await context.newPage();
  const seen = { printed: null, wasm: [], failures: [], logs: [] };
  const reads = [];
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() === 'log' && text.startsWith(`${cliTranslation()} `)) seen.printed = text;
    else if (!/^\d+ of \d+ bytes$/.test(text)) seen.logs.push(`${m.type()}: ${text}`);
  });
  page.on('pageerror', (e) => seen.failures.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    const where = new URL(r.url());
    if (r.status() >= 400 && where.pathname !== '/favicon.ico') seen.failures.push(`HTTP ${r.status()} ${r.url()}`);
    if (r.status() === 200 && where.pathname.endsWith('.wasm')) {
      reads.push(r.body().then((body) => seen.wasm.push(builds.get(createHash('sha256').update(body).digest('hex')) ?? r.url())));
    }
  });
  try {
    await page.goto(url);
    const deadline = Date.now() + 90_000;
    while (!seen.printed && !seen.failures.some((f) => f.startsWith('page error')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await Promise.all(reads);
    seen.isolated = await page.evaluate(() => crossOriginIsolated);
    seen.workers = page.workers().length;
  } finally {
    await page.close();
  }
  return seen;
}

function checkRun(seen, { isolated, what }) {
  const details = `${what}: ${JSON.stringify({ ...seen, logs: seen.logs.slice(-20) }, null, 1)}`;
  assert.deepEqual(seen.failures, [], details);
  assert.ok(seen.printed, `${what} printed the README example's translation "${cliTranslation()} ... ms": ${details}`);
  assert.equal(seen.isolated, isolated, details);
  if (isolated) {
    // Chromium validates relaxed SIMD: the threaded build with it, and its pthreads beside the engine's Worker.
    assert.deepEqual(seen.wasm, ['tformer-mtr.wasm'], details);
    assert.ok(seen.workers >= 2, `the engine's Worker and its threads: ${details}`);
  } else {
    assert.deepEqual(seen.wasm, ['tformer-st.wasm'], details);
    assert.equal(seen.workers, 1, `the engine's Worker only: ${details}`);
  }
}

test('Chromium: every build translates, threaded with COOP/COEP and single-threaded without', { timeout: 600_000 }, async (t) => {
  for (const tool of TOOLS) assert.ok(built[tool] !== undefined, `${tool} built`);
  const dist = (tool, ...p) => path.join(apps[tool], ...p);
  // One server for all: Vite's build at the root (its pages load /assets/...), webpack's output
  // only (it copies every file it needs), the esbuild and Rollup apps' whole folders, node_modules/
  // included (they leave the package's files where npm put them, where the package finds them:
  // web/src/environment.js, leftBehind).
  // A context with the cookie isolation=off gets no COOP/COEP.
  const server = await serveStatic({
    routes: {
      '/index.html': dist('vite', 'dist', 'index.html'), '/assets/': dist('vite', 'dist', 'assets'),
      '/webpack/index.html': dist('webpack', 'index.html'), '/webpack/dist/': dist('webpack', 'dist'),
      '/esbuild/': apps.esbuild, '/rollup/': apps.rollup,
      [new URL(example.model, 'http://x').pathname]: modelFile,
    },
    isolated: (req) => !/(^|;\s*)isolation=off/.test(req.headers.cookie ?? ''),
    // A context with the cookie hide=<path> gets a 404 for that path (the error tests below).
    hide: (req, p) => (req.headers.cookie ?? '').split(/;\s*/).includes(`hide=${encodeURIComponent(p)}`),
  });
  const browser = await launchChromium(playwrightChromium());
  const builds = wasmBuilds();
  try {
    for (const isolated of [true, false]) {
      const context = await browser.newContext();
      if (!isolated) await context.addCookies([{ name: 'isolation', value: 'off', url: server.url }]);
      for (const [tool, page] of [['vite', 'index.html'], ['webpack', 'webpack/index.html'], ['esbuild', 'esbuild/index.html'], ['rollup', 'rollup/index.html']]) {
        await t.test(`${tool}, ${isolated ? 'cross-origin isolated' : 'no COOP/COEP'}`, async (tt) => {
          const started = Date.now();
          const seen = await runExample(context, new URL(page, server.url).href, builds);
          checkRun(seen, { isolated, what: `${tool} (${page})` });
          tt.diagnostic(`${seen.printed} (${seen.wasm.join(', ')}, ${seen.workers} workers; page ${Date.now() - started} ms)`);
        });
      }
      await context.close();
    }

    // wasmBase on another origin (a CDN, here answered by the browser context with CORS): the
    // wasm builds come from there, the pthread script through a blob: URL of its text.
    await t.test('wasmBase on another origin, with CORS', async (tt) => {
      const cdn = 'https://cdn.example/tformer-wasm/dist/';
      writeFileSync(path.join(apps.esbuild, 'src', 'cdn.js'), `import { Translator } from 'tformer-wasm';
const translator = await Translator.create({ model: ${JSON.stringify(example.model)}, wasmBase: ${JSON.stringify(cdn)} });
const result = await translator.translate(${JSON.stringify(example.sentence)});
console.log(result.text, translator.info.files.wasm);\n`);
      writeFileSync(path.join(apps.esbuild, 'cdn.html'), '<!doctype html>\n<meta charset="utf-8"><script type="module" src="dist/cdn.js"></script>\n');
      run(bin('esbuild'), ['src/cdn.js', '--bundle', '--format=esm', '--outdir=dist'], apps.esbuild);
      const context = await browser.newContext();
      const fromCdn = [];
      await context.route(`${cdn}**`, (route) => {
        const file = path.join(apps.esbuild, 'node_modules', 'tformer-wasm', 'dist', path.basename(new URL(route.request().url()).pathname));
        fromCdn.push(path.basename(file));
        if (!existsSync(file)) return route.fulfill({ status: 404 });
        return route.fulfill({ status: 200, body: readFileSync(file), headers: { 'access-control-allow-origin': '*',
          'content-type': file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript' } });
      });
      const seen = await runExample(context, new URL('esbuild/cdn.html', server.url).href, builds);
      await context.close();
      checkRun(seen, { isolated: true, what: `esbuild with wasmBase ${cdn}` });
      assert.match(seen.printed, new RegExp(` ${cdn}tformer-mtr\\.wasm$`));
      assert.deepEqual([...new Set(fromCdn)].sort(), ['tformer-mtr.mjs', 'tformer-mtr.wasm', 'tformer-mtr.worker.js']);
      tt.diagnostic(seen.printed);
    });

    // A file that cannot be loaded is named in the error, whichever it is: the engine's Worker
    // script, the glue, the pthread script (a browser says nothing of which), or the wasm.
    const rollupPackage = '/rollup/node_modules/tformer-wasm/';
    const viteGlue = readdirSync(dist('vite', 'dist', 'assets')).find((f) => /^tformer-st-.*\.mjs$/.test(f));
    for (const [missing, isolated, said] of [
      [`${rollupPackage}src/worker.js`, true, /the translation engine stopped: its Worker script (\S+) could not be loaded \(HTTP 404\)/],
      [`${rollupPackage}dist/tformer-mtr.worker.js`, true, /the translation engine stopped: its thread script (\S+) could not be loaded \(HTTP 404\)/],
      [`${rollupPackage}dist/tformer-st.wasm`, false, /could not load the WebAssembly module (\S+): HTTP 404/],
      [`/assets/${viteGlue}`, false, /could not load the engine's JavaScript (\S+):/],
    ]) {
      await t.test(`a missing ${missing} is named in the error`, async (tt) => {
        const context = await browser.newContext();
        const cookies = [{ name: 'hide', value: encodeURIComponent(missing), url: server.url }];
        if (!isolated) cookies.push({ name: 'isolation', value: 'off', url: server.url });
        await context.addCookies(cookies);
        const page = missing.startsWith('/rollup/') ? 'rollup/index.html' : 'index.html';
        const seen = await runExample(context, new URL(page, server.url).href, builds);
        await context.close();
        const error = seen.failures.find((f) => f.startsWith('page error: '));
        assert.ok(error, `the example failed: ${JSON.stringify(seen)}`);
        assert.match(error, said);
        assert.equal(said.exec(error)[1], new URL(missing, server.url).href, error);
        tt.diagnostic(error);
      });
    }
  } finally {
    await browser.close();
    server.close();
  }
});

test("Vite's dev server serves the README's example, and it translates", { timeout: 180_000 }, async (t) => {
  const app = apps.vite;
  assert.ok(app, 'the Vite app exists');
  // The model where the example loads it: Vite's dev server serves public/ at the root.
  const served = path.join(app, 'public', ...new URL(example.model, 'http://x').pathname.split('/').filter(Boolean));
  mkdirSync(path.dirname(served), { recursive: true });
  symlinkSync(modelFile, served);
  const probe = await serveStatic({ routes: {} });  // a free port, for --strictPort
  const port = probe.server.address().port;
  probe.close();
  const dev = spawn(bin('vite'), ['--port', String(port), '--strictPort'], { cwd: app, env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  dev.stdout.on('data', (d) => { output += d; });
  dev.stderr.on('data', (d) => { output += d; });
  const browser = await launchChromium(playwrightChromium());
  try {
    const deadline = Date.now() + 60_000;
    while (!/ready in/.test(output) && dev.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(output, /ready in/, `vite started: ${output}`);
    const context = await browser.newContext();
    const seen = await runExample(context, `http://localhost:${port}/`, wasmBuilds());
    checkRun(seen, { isolated: false, what: `vite dev (${output.trim()})` });
    assert.doesNotMatch(output, /Failed to resolve|Internal server error/i, output);
    t.diagnostic(`${seen.printed} (${seen.wasm.join(', ')}, ${seen.workers} workers)`);
  } finally {
    await browser.close();
    dev.kill();
  }
});

test('Node imports the installed package and translates; a Vite SSR build of it runs in Node', { timeout: 120_000 }, () => {
  const app = apps.vite;
  assert.ok(app, 'the Vite app exists');
  const translate = `const t = await Translator.create({ model: ${JSON.stringify(modelFile)} });
    console.log((await t.translate(${JSON.stringify(example.sentence)})).text, t.info.variant);
    t.dispose();`;
  writeFileSync(path.join(app, 'node.mjs'), `import { Translator } from 'tformer-wasm';\n${translate}\n`);
  assert.equal(run('node', ['node.mjs'], app).trim(), `${cliTranslation()} ${nodeVariant()}`);
  // SSR: the app's server entry, bundled by Vite for Node (dependencies stay imports).
  writeFileSync(path.join(app, 'src', 'server.js'), `import { Translator } from 'tformer-wasm';\nexport async function render() {\n${translate}\n}\n`);
  run(bin('vite'), ['build', '--ssr', 'src/server.js', '--outDir', 'dist-ssr'], app);
  const entry = readdirSync(path.join(app, 'dist-ssr')).find((f) => /^server\.m?js$/.test(f));
  assert.ok(entry, `vite build --ssr wrote the server entry: ${readdirSync(path.join(app, 'dist-ssr'))}`);
  writeFileSync(path.join(app, 'ssr.mjs'), `const m = await import(${JSON.stringify(pathToFileURL(path.join(app, 'dist-ssr', entry)).href)});\nawait m.render();\n`);
  const out = run('node', ['ssr.mjs'], app);
  assert.equal(out.trim(), `${cliTranslation()} ${nodeVariant()}`);
});

// Node's default: the threaded build, relaxed where node validates relaxed SIMD (not node 20).
function nodeVariant() {
  const probe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 15, 1, 13, 0,
    65, 1, 253, 15, 65, 2, 253, 15, 253, 128, 2, 11]);
  return WebAssembly.validate(probe) ? 'relaxed' : 'threaded';
}
