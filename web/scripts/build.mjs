#!/usr/bin/env node
// Copies the wasm builds into web/dist/, where the package (src/wasm-files.js, `files`,
// `exports`) finds them. They are outputs of the Emscripten build of the repository:
//   emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release && cmake --build build-wasm -j2
//
//   node scripts/build.mjs              copy (from ../build-wasm/wasm, or $TFORMER_WASM_DIR)
//   node scripts/build.mjs --if-needed  copy only what is missing or older than the build; with
//                                       neither a build nor dist/, run the wasm build first
//                                       (what `npm run demo` does on a fresh clone)
//   node scripts/build.mjs --check      only check that dist/ is complete, the relaxed-SIMD
//                                       build included (npm pack runs this)
//
// The relaxed-SIMD variant (tformer-mtr.*, optional here: it needs LLVM 19, wasm/RelaxedSimd.cmake)
// is copied too when ../build-wasm-relaxed/wasm (or $TFORMER_WASM_RELAXED_DIR) holds it; without
// that build any old copy leaves dist/, and the package loads the threaded build instead. A packed
// package needs it: the package names every file of dist/ by a literal URL (src/wasm-files.js),
// and webpack fails a build where one of them is missing.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = process.env.TFORMER_WASM_DIR || path.resolve(web, '..', 'build-wasm', 'wasm');
const dist = path.join(web, 'dist');
export const FILES = ['tformer-mt.mjs', 'tformer-mt.wasm', 'tformer-mt.worker.js', 'tformer-st.mjs', 'tformer-st.wasm'];
export const RELAXED_FILES = ['tformer-mtr.mjs', 'tformer-mtr.wasm', 'tformer-mtr.worker.js'];
const relaxedFrom = process.env.TFORMER_WASM_RELAXED_DIR || path.resolve(web, '..', 'build-wasm-relaxed', 'wasm');

// The Emscripten build of the wasm modules only (the tests are left to `cmake --build build-wasm`),
// for `npm run demo` on a fresh clone. What it does and how long it takes are said as it goes:
// the configure step builds the third-party libraries for wasm (XNNPACK, SentencePiece, the Marian
// importer's zlib and yaml-cpp; no progress figures of their own: the time so far is printed),
// then the engine's two builds print cmake's percentages with the time left at the pace so far.
async function buildWasm() {
  const root = path.resolve(web, '..');
  const jobs = String(Math.min(2, availableParallelism?.() ?? 2));
  const started = Date.now();
  console.log(`No wasm build yet: building it with emcmake (${jobs} jobs): first the third-party libraries, then the engine ` +
    '(its single-threaded and threaded builds). The time left is estimated from the progress as it goes.');
  const steps = [
    ['configure, with the third-party libraries for wasm', 'emcmake', ['cmake', '-S', root, '-B', path.join(root, 'build-wasm'), '-DCMAKE_BUILD_TYPE=Release']],
    ['the engine', 'cmake', ['--build', path.join(root, 'build-wasm'), '-j', jobs, '--target', 'tformer-mt', 'tformer-st']],
  ];
  for (const [i, [what, command, args]] of steps.entries()) {
    console.log(`step ${i + 1} of ${steps.length}: ${what}`);
    const step = Date.now();
    const status = await runWithProgress(command, args);
    if (status !== 0) {
      console.error(status === 'ENOENT' ? `${command} not found: apt-get install emscripten cmake (see the top README)`
        : `the wasm build failed (${what}): exit ${status}`);
      return false;
    }
    console.log(`step ${i + 1} of ${steps.length} done in ${duration(Date.now() - step)}`);
  }
  console.log(`wasm build done in ${duration(Date.now() - started)}`);
  return true;
}

function duration(ms) {
  return ms < 90e3 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60e3)} min`;
}

// Runs a command, passing its output on; where a line says how far the build is ("[ 42%]"), the
// time left at the pace so far is added, and every 30 s without one the time so far is printed.
// Resolves to its exit status, or 'ENOENT' when there is no such command.
function runWithProgress(command, args) {
  return new Promise((resolve) => {
    const start = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = Date.now();
    const quiet = setInterval(() => {
      if (Date.now() - last >= 30e3) console.log(`  ... ${duration(Date.now() - start)} so far`);
    }, 30e3);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const percent = Number(/^\[\s*(\d+)%\]/.exec(line)?.[1]);
      const elapsed = Date.now() - start;
      if (percent > 0 && percent < 100 && elapsed > 20e3) line += `  (about ${duration((elapsed * (100 - percent)) / percent)} left)`;
      console.log(line);
      last = Date.now();
    });
    child.on('error', (e) => {
      clearInterval(quiet);
      resolve(e.code === 'ENOENT' ? 'ENOENT' : 1);
    });
    child.on('close', (code) => {
      clearInterval(quiet);
      resolve(code ?? 1);
    });
  });
}

/** @returns {Promise<number>} the exit status */
export async function main(mode) {
  if (!['copy', '--if-needed', '--check'].includes(mode)) {
    console.error('usage: node scripts/build.mjs [--if-needed | --check]');
    return 2;
  }

  const missingIn = (dir) => FILES.filter((f) => !existsSync(path.join(dir, f)));

  if (mode === '--check') {
    const missing = missingIn(dist);
    if (missing.length) {
      console.error(`web/dist is missing ${missing.join(', ')}: run \`npm run build\` (after building build-wasm)`);
      return 1;
    }
    const relaxedMissing = RELAXED_FILES.filter((f) => !existsSync(path.join(dist, f)));
    if (relaxedMissing.length) {
      console.error(`web/dist is missing ${relaxedMissing.join(', ')}: a package needs the relaxed-SIMD build too (bundlers ` +
        'resolve every file the package names): build build-wasm-relaxed (wasm/RelaxedSimd.cmake, LLVM 19), then `npm run build`');
      return 1;
    }
    return 0;
  }

  let missing = missingIn(from);
  if (missing.length && mode === '--if-needed') {
    if (missingIn(dist).length === 0) {
      console.log(`web/dist: using the files already there (${from} has no build)`);
      return 0;
    }
    if (!process.env.TFORMER_WASM_DIR) {
      if (!(await buildWasm())) return 1;
      missing = missingIn(from);
    }
  }
  if (missing.length) {
    console.error(`${from} lacks ${missing.join(', ')}. Build the wasm modules first:\n` +
      '  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release && cmake --build build-wasm -j2\n' +
      '(or set TFORMER_WASM_DIR to a folder holding them)');
    return 1;
  }

  mkdirSync(dist, { recursive: true });
  let copied = 0;
  for (const f of FILES) {
    const src = path.join(from, f), dst = path.join(dist, f);
    if (mode === '--if-needed' && existsSync(dst) && statSync(dst).mtimeMs >= statSync(src).mtimeMs) continue;
    copyFileSync(src, dst);
    copied++;
  }
  // The optional relaxed-SIMD variant: all of its files or none.
  const relaxedBuilt = RELAXED_FILES.every((f) => existsSync(path.join(relaxedFrom, f)));
  for (const f of RELAXED_FILES) {
    const src = path.join(relaxedFrom, f), dst = path.join(dist, f);
    if (!relaxedBuilt) {
      rmSync(dst, { force: true });
      continue;
    }
    if (mode === '--if-needed' && existsSync(dst) && statSync(dst).mtimeMs >= statSync(src).mtimeMs) continue;
    copyFileSync(src, dst);
    copied++;
  }
  if (!relaxedBuilt) console.log(`web/dist: no relaxed-SIMD build in ${path.relative(process.cwd(), relaxedFrom) || relaxedFrom} (optional)`);
  // Emscripten's pthread worker script is CommonJS for Node; the package itself is ES modules.
  writeFileSync(path.join(dist, 'package.json'), '{ "type": "commonjs" }\n');
  const size = [...FILES, ...(relaxedBuilt ? RELAXED_FILES : [])].reduce((n, f) => n + statSync(path.join(dist, f)).size, 0);
  const rel = (dir) => path.relative(process.cwd(), dir) || dir;
  console.log(copied ? `web/dist: ${copied} of ${FILES.length + (relaxedBuilt ? RELAXED_FILES.length : 0)} files copied from ${rel(from)}` +
    (relaxedBuilt ? ` and ${rel(relaxedFrom)} ` : ' ') +
    `(${(size / 1048576).toFixed(1)} MiB in all)` : 'web/dist: up to date');
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv[2] ?? 'copy');
}
