// `npm pack` makes a tarball that installs into an empty folder and translates there, in Node,
// as a user's project would use it (import 'tformer-wasm').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { webDir, fixturePath, golden, nativeCli, repoRoot, requireDist } from './helpers.mjs';

// A README's js blocks, by the file name on their first line ("// main.mjs"): web/README.md's
// Quick start, and the top README's example.
function readmeSnippet(name, readmePath = path.join(webDir, 'README.md')) {
  const readme = readFileSync(readmePath, 'utf8');
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith(`// ${name}\n`));
  assert.ok(block, `${path.relative(repoRoot, readmePath)} has a js block starting with "// ${name}"`);
  return block;
}

test('npm pack: the tarball installs into an empty folder and translates', { timeout: 300_000 }, (t) => {
  requireDist();
  const scratch = mkdtempSync(path.join(tmpdir(), 'tformer-pack-'));
  try {
    const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], webDir));
    const files = packed.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'LICENSE', 'THIRD_PARTY_NOTICES', 'types/index.d.ts', 'src/index.js', 'src/worker.js', 'dist/package.json',
      'dist/tformer-mt.mjs', 'dist/tformer-mt.wasm', 'dist/tformer-mt.worker.js', 'dist/tformer-st.mjs', 'dist/tformer-st.wasm']) {
      assert.ok(files.includes(f), `the tarball has ${f}`);
    }
    // The relaxed-SIMD build ships when it was built (.ci/run builds it), whole.
    if (existsSync(path.join(webDir, 'dist', 'tformer-mtr.wasm'))) {
      for (const f of ['dist/tformer-mtr.mjs', 'dist/tformer-mtr.wasm', 'dist/tformer-mtr.worker.js']) assert.ok(files.includes(f), `the tarball has ${f}`);
    }
    assert.ok(!files.some((f) => /^(demo|scripts|node_modules)\//.test(f)), `only the package ships: ${files.join(' ')}`);
    t.diagnostic(`${packed.filename}: ${files.length} files, ${(packed.size / 1048576).toFixed(2)} MiB packed, ` +
      `${(packed.unpackedSize / 1048576).toFixed(2)} MiB unpacked`);

    const app = path.join(scratch, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    npm(['install', '--offline', path.join(scratch, packed.filename)], app);
    const g = golden('marian');
    writeFileSync(path.join(app, 'main.js'), `
      import { Translator } from 'tformer-wasm';
      const model = process.argv[2];
      for (const variant of ['threaded', 'single']) {
        const t = await Translator.create({ model, variant });
        const r = await t.translate(${JSON.stringify(g.sentences.map((s) => s.text))}, { alignment: true, passthrough: false, repetitionGuard: false });
        console.log(JSON.stringify({ variant: t.info.variant, files: t.info.files, texts: r.map((x) => x.text), tokens: r.map((x) => Array.from(x.tokens)) }));
        t.dispose();
      }
    `);
    const lines = execFileSync('node', ['main.js', fixturePath('marian')], { cwd: app, encoding: 'utf8' }).trim().split('\n').map(JSON.parse);
    assert.deepEqual(lines.map((l) => l.variant), ['threaded', 'single']);
    for (const l of lines) {
      assert.ok(l.files.wasm.includes(`${path.sep}node_modules${path.sep}tformer-wasm${path.sep}dist${path.sep}`), l.files.wasm);
      assert.deepEqual(l.texts, g.sentences.map((s) => s.greedy.text));
      assert.deepEqual(l.tokens, g.sentences.map((s) => s.greedy.tokens));
    }
    const installed = JSON.parse(readFileSync(path.join(app, 'node_modules', 'tformer-wasm', 'package.json'), 'utf8'));
    assert.equal(installed.types, './types/index.d.ts');

    // The README's Node and CommonJS snippets run as they are, with the model where they say
    // (models/tiny.deen/model.tfm of the repository, copied beside them), and translate as the CLI.
    const model = path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm');
    if (existsSync(model)) {
      execFileSync('mkdir', ['-p', path.join(app, 'models', 'tiny.deen')]);
      execFileSync('cp', [model, path.join(app, 'models', 'tiny.deen', 'model.tfm')]);
      const cli = (text) => execFileSync(nativeCli, ['translate', '-m', model], { input: `${text}\n`, encoding: 'utf8' }).trim();
      for (const [name, sentence] of [['main.mjs', 'Zwei Kinder spielen im Park.'], ['main.cjs', 'Wie geht es dir?']]) {
        const code = readmeSnippet(name);
        assert.ok(code.includes(sentence), `${name} translates "${sentence}"`);
        writeFileSync(path.join(app, name), code);
        const out = execFileSync('node', [name], { cwd: app, encoding: 'utf8' }).trim();
        assert.equal(out, cli(sentence), `the README's ${name}`);
        t.diagnostic(`README ${name}: "${sentence}" -> "${out}"`);
      }
      // The top README's example prints what its comment says, which is the CLI's translation.
      const top = readmeSnippet('main.mjs', path.join(repoRoot, 'README.md'));
      const [, sentence] = top.match(/translate\('([^']+)'\)/);
      const [, said] = top.match(/console\.log\(result\.text\);\s*\/\/ (.+)\n/);
      writeFileSync(path.join(app, 'top.mjs'), top);
      const out = execFileSync('node', ['top.mjs'], { cwd: app, encoding: 'utf8' }).trim();
      assert.equal(out, said, "the top README's example prints what its comment says");
      assert.equal(out, cli(sentence), "the top README's example translates as the CLI");
    } else {
      t.diagnostic('no models/tiny.deen/model.tfm: the README snippets were not run');
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

// The licences: the package ships the project's LICENSE and the notices of the third-party code in
// its wasm builds, as the repository has them, and those notices cover every pinned source.
test('npm pack --dry-run lists LICENSE and THIRD_PARTY_NOTICES, the repository\'s own', { timeout: 120_000 }, () => {
  requireDist();
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: webDir, encoding: 'utf8' });
  const [packed] = JSON.parse(out);
  const files = new Map(packed.files.map((f) => [f.path, f.size]));
  for (const name of ['LICENSE', 'THIRD_PARTY_NOTICES']) {
    const original = readFileSync(path.join(repoRoot, name));
    assert.ok(files.has(name), `the tarball lists ${name}: ${[...files.keys()].join(' ')}`);
    assert.equal(files.get(name), original.length, `${name} in the tarball has the size of the repository's`);
    assert.ok(readFileSync(path.join(webDir, name)).equals(original), `web/${name} (what npm packs) is the repository's ${name}`);
  }
  const license = readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8');
  const pkg = JSON.parse(readFileSync(path.join(webDir, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} the tformer-wasm authors\n/);

  // Every source tarball pinned for the builds has its notice, named with its sha256.
  const notices = readFileSync(path.join(repoRoot, 'THIRD_PARTY_NOTICES'), 'utf8');
  const pins = ['SHA256SUMS', 'SHA256SUMS.marian', 'SHA256SUMS.cld2'].flatMap((f) =>
    readFileSync(path.join(repoRoot, 'core', 'third_party', f), 'utf8').trim().split('\n').map((line) => line.split(/\s+/)));
  assert.ok(pins.length >= 7, `${pins.length} pinned tarballs`);
  for (const [sha256, tarball] of pins) {
    assert.ok(notices.includes(`from ${tarball} (sha256 ${sha256})`), `THIRD_PARTY_NOTICES has the notice of ${tarball}`);
  }
  const headings = notices.split('\n').filter((line, i, lines) => /^\d+\. /.test(line) && /^={78}$/.test(lines[i - 1] ?? ''));
  for (const component of ['XNNPACK', 'pthreadpool', 'FXdiv', 'SentencePiece', 'protobuf-lite', 'zlib', 'MiniZip', 'yaml-cpp',
    'CLD2', 'nlohmann/json', "Emscripten's runtime"]) {
    assert.ok(headings.some((h) => h.includes(component)), `a section for ${component}: ${headings.join(' / ')}`);
  }
});

// THIRD_PARTY_NOTICES is what core/third_party/notices.py writes from the verified pinned tarballs
// (where a build has fetched them: build-wasm/_deps/downloads) and the installed Debian packages.
test('THIRD_PARTY_NOTICES is up to date with its generator', { timeout: 60_000 }, (t) => {
  const run = spawnSync('/usr/bin/python3', [path.join(repoRoot, 'core', 'third_party', 'notices.py'), '--check'], { encoding: 'utf8' });
  if (run.status === 2 && /is in none of/.test(run.stderr)) {
    t.skip(`the pinned tarballs are not here: ${run.stderr.trim()}`);
    return;
  }
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /up to date/);
});
