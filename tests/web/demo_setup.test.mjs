// `npm run demo` on a fresh clone (web/scripts/build.mjs --if-needed): with no wasm build and no
// web/dist it builds the wasm modules itself, says what each step is, adds the time left to the
// build's progress lines, copies the result into dist/, and says what to install when emcmake is
// missing or that a step failed. The build here is a stand-in (emcmake and cmake scripts on PATH
// that write the files and print cmake-like progress), in a copy of the script in a temporary tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { webDir } from './helpers.mjs';

// A tree with web/scripts/build.mjs and a bin/ of stand-ins; `cmake` fails with exit `fail`, if given.
function tree({ fail = null, emcmake = true } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), 'tformer-demo-setup-'));
  mkdirSync(path.join(root, 'web', 'scripts'), { recursive: true });
  copyFileSync(path.join(webDir, 'scripts', 'build.mjs'), path.join(root, 'web', 'scripts', 'build.mjs'));
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  const script = (name, body) => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  if (emcmake) script('emcmake', 'echo "-- configuring"; exec "$@"');
  // cmake -S ... (configure) does nothing; cmake --build prints progress and writes the modules.
  script('cmake', `if [ "$1" != "--build" ]; then echo "-- Configuring done"; exit 0; fi
${fail ? `echo "[ 10%] Building CXX object x.o"; exit ${fail}` : ''}
for p in 10 50 90; do echo "[ $p%] Building CXX object core/x$p.o"; sleep 1; done
mkdir -p "$2/wasm"; for f in tformer-mt.mjs tformer-mt.wasm tformer-mt.worker.js tformer-st.mjs tformer-st.wasm; do echo x > "$2/wasm/$f"; done
echo "[100%] Built target tformer-st"`);
  // Without emcmake: nothing but the stand-ins on PATH (the system's emcmake left out).
  return { root, env: { ...process.env, PATH: emcmake ? `${bin}:/usr/bin:/bin` : bin } };
}

// The progress lines get the time left only after 20 s of build (before, the pace says little);
// the stand-in is quicker: the lines pass through, and the steps and their times are said.
test('npm run demo builds the missing wasm modules itself, step by step, and copies them into dist/', () => {
  const { root, env } = tree();
  try {
    const r = spawnSync(process.execPath, [path.join(root, 'web', 'scripts', 'build.mjs'), '--if-needed'], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^No wasm build yet: building it with emcmake/);
    assert.match(r.stdout, /step 1 of 2: configure, with the third-party libraries for wasm\n/);
    assert.match(r.stdout, /step 2 of 2: the engine\n\[ 10%\] Building CXX object core\/x10\.o/);
    assert.match(r.stdout, /step 2 of 2 done in \d+ s\nwasm build done in \d+ s\n/);
    assert.match(r.stdout, /web\/dist: 5 of 5 files copied/);
    for (const f of ['tformer-mt.wasm', 'tformer-st.wasm', 'package.json']) assert.ok(existsSync(path.join(root, 'web', 'dist', f)), f);
    // Run again: nothing to build, nothing to copy.
    const again = spawnSync(process.execPath, [path.join(root, 'web', 'scripts', 'build.mjs'), '--if-needed'], { env, encoding: 'utf8' });
    assert.equal(again.status, 0);
    assert.doesNotMatch(again.stdout, /building/);
    assert.match(again.stdout, /web\/dist: up to date/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('npm run demo says what failed, and what to install without emcmake', () => {
  for (const [setup, wanted] of [[{ fail: 2 }, /the wasm build failed \(the engine\): exit 2/],
    [{ emcmake: false }, /emcmake not found: apt-get install emscripten cmake/]]) {
    const { root, env } = tree(setup);
    try {
      const r = spawnSync(process.execPath, [path.join(root, 'web', 'scripts', 'build.mjs'), '--if-needed'], { env, encoding: 'utf8' });
      assert.equal(r.status, 1);
      assert.match(r.stderr, wanted);
      assert.equal(existsSync(path.join(root, 'web', 'dist', 'tformer-mt.wasm')), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
});
