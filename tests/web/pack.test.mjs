// `npm pack` makes a tarball that installs into an empty folder and translates there, in Node,
// as a user's project would use it (import 'tformer-wasm').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { webDir, fixturePath, golden, nativeCli, repoRoot, requireDist } from './helpers.mjs';

// web/README.md's Quick start blocks, by the file name on their first line ("// main.mjs").
function readmeSnippet(name) {
  const readme = readFileSync(path.join(webDir, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith(`// ${name}\n`));
  assert.ok(block, `web/README.md has a js block starting with "// ${name}"`);
  return block;
}

test('npm pack: the tarball installs into an empty folder and translates', { timeout: 300_000 }, (t) => {
  requireDist();
  const scratch = mkdtempSync(path.join(tmpdir(), 'tformer-pack-'));
  try {
    const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], webDir));
    const files = packed.files.map((f) => f.path).sort();
    for (const f of ['package.json', 'README.md', 'types/index.d.ts', 'src/index.js', 'src/worker.js', 'dist/package.json',
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
    } else {
      t.diagnostic('no models/tiny.deen/model.tfm: the README snippets were not run');
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
