// Hostile model files and limits through the npm package in Node (the robustness issue's findings,
// the same cases as tests/cli/expect_robust.cmake natively): each create() or translate() must
// settle, within a time bound, as a rejection whose message says why, in both the threaded and the
// single-threaded build; and a WebGPU readback in flight when a Worker or the process ends must
// not abort node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { PLAIN, fixtureBytes, golden, packageUnderTest, repoRoot, webDir, withHeaderText as editHeaderText } from './helpers.mjs';

const { pkg, create } = await packageUnderTest();

const BOUND_MS = 60000;  // each case settles well within this

// A fixture with its JSON header replaced (the tensor data kept, re-aligned to 64 bytes).
const withHeaderText = (bytes, edit) => new Uint8Array(editHeaderText(bytes, edit));

const withHeader = (bytes, edit) => withHeaderText(bytes, (text) => {
  const header = JSON.parse(text);
  edit(header);
  return JSON.stringify(header);
});

// Settles within BOUND_MS or fails the test (instead of hanging it).
function bounded(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${BOUND_MS} ms`)), BOUND_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function refuses(options, pattern, what) {
  const started = performance.now();
  await assert.rejects(bounded(pkg.Translator.create(options), what), pattern, what);
  return performance.now() - started;
}

for (const variant of ['threaded', 'single']) {
  test(`${variant}: a header nested 5,000 to 50,000 deep is refused with the reason`, { timeout: 4 * BOUND_MS }, async () => {
    const marian = fixtureBytes('marian');
    for (const depth of [5000, 10000, 50000]) {
      const nest = '['.repeat(depth) + ']'.repeat(depth);
      const model = withHeaderText(marian, (text) => text.replace(/"metadata":\s*/, `"metadata": ${nest}, "kept": `));
      await refuses({ model, variant, threads: 1 }, /header nests arrays or objects more than 64 levels deep/, `depth ${depth}`);
    }
  });

  test(`${variant}: model files that claim what they cannot hold are refused`, { timeout: 4 * BOUND_MS }, async () => {
    const tutorial = fixtureBytes('tutorial');
    const marian = fixtureBytes('marian');
    // Finding 1: no room for a source token next to BOS and EOS (the cutting would never end).
    await refuses({ model: withHeader(tutorial, (h) => { h.config.max_positions = 2; }), variant },
      /'max_positions' = 2 leaves no room for a source token next to BOS and EOS/, 'max_positions 2');
    // Finding 4: tensors sharing bytes.
    const overlap = withHeader(marian, (h) => {
      const [a, b] = h.tensors.filter((t) => t.name.startsWith('encoder.layers.') && t.name.endsWith('ffn.w1.weight'));
      b.offset = a.offset;
    });
    await refuses({ model: overlap, variant }, /\) overlap/, 'overlapping tensors');
    // Finding 5: a special id past the SentencePiece model's 256 pieces.
    await refuses({ model: withHeader(tutorial, (h) => { h.config.vocab_size = 300; h.config.bos_id = 299; }), variant },
      /config 'bos_id' = 299 is not a piece of the source tokenizer, which has 256 pieces/, 'bos_id 299');
  });
}

test('a directory or a missing path as the model: the path and the OS\'s reason', { timeout: BOUND_MS }, async () => {
  const dir = path.join(repoRoot, 'tests', 'fixtures', 'marian');
  await assert.rejects(bounded(pkg.Translator.create({ model: dir }), 'a directory'),
    (e) => e.message.includes(dir) && /EISDIR|directory/.test(e.message));
  await assert.rejects(bounded(pkg.Translator.create({ model: '/nonexistent/model.tfm' }), 'a missing file'),
    (e) => e.message.includes('/nonexistent/model.tfm') && /ENOENT|no such file/i.test(e.message));
});

test('limits: characters per input and tokens per sentence, configurable, with clear errors', { timeout: 4 * BOUND_MS }, async () => {
  const t = await create({ model: fixtureBytes('marian'), threads: 1 });
  const text = 'Ein Mann fährt Fahrrad und zwei Hunde spielen im Schnee';
  // The default, 100,000 characters: a longer input is refused before any work on it.
  await assert.rejects(bounded(t.translate('x'.repeat(100001)), 'a 100,001-character input'),
    /input text 1 has 100001 characters, more than the limit of 100000 per input/);
  await assert.rejects(t.translate(['ok', 'Die Katze schläft.'], { maxInputChars: 10 }),
    /input text 2 has 18 characters, more than the limit of 10 per input/);
  assert.equal((await t.translate('Hund Mädch', { maxInputChars: 10 })).sentences.length, 1);
  const whole = await t.translate(text);
  assert.equal(whole.sentences.length, 1);
  const cut = await t.translate(text, { maxSentenceTokens: 4 });
  assert.ok(cut.sentences.length > 1, 'cut into pieces');
  assert.ok(cut.sentences.every((s) => s.sourceTokens.length <= 5), 'at most 4 tokens and EOS each');
  assert.equal((await t.translate(text, { maxSentenceTokens: 100000 })).text, whole.text, 'above the model\'s limit: no change');
  await assert.rejects(t.translate(text, { maxInputChars: -1 }), { name: 'RangeError', message: /option 'maxInputChars' must be between 0 and/ });
  await assert.rejects(t.translate(text, { maxSentenceTokens: 'many' }), { name: 'TypeError', message: /option 'maxSentenceTokens' must be an integer/ });
  assert.equal(t.info.restarts, 0, 'refusals do not restart the engine');
});

// A node process whose engine Worker has a WebGPU readback in flight when the translation is
// cancelled and the process then has nothing left to do: it must exit normally (npm webgpu
// aborts the process when a thread ends under a pending mapAsync).
const dist = path.join(repoRoot, 'web', 'dist', 'tformer-mt.wasm');
const swiftshader = '/usr/lib/chromium/vk_swiftshader_icd.json';
const gpuSkip = !existsSync(dist) ? 'no web/dist'
  : !existsSync(path.join(repoRoot, 'web', 'node_modules', 'webgpu')) ? 'no npm webgpu'
  : !process.env.VK_ICD_FILENAMES && !existsSync(swiftshader) ? 'no Vulkan adapter (SwiftShader)' : false;

const exitScript = `
  import { readFileSync } from 'node:fs';
  const pkg = await import(${JSON.stringify(path.join(repoRoot, 'web', 'src', 'index.js'))});
  const model = new Uint8Array(readFileSync(${JSON.stringify(path.join(repoRoot, 'tests', 'fixtures', 'marian', 'model.tfm'))}));
  const t = await pkg.Translator.create({ model, backend: 'webgpu', threads: 1 });
  if (t.info.backend !== 'webgpu') { console.log('no webgpu: ' + t.info.backendReason); process.exit(0); }
  const text = readFileSync(${JSON.stringify(path.join(repoRoot, 'tests', 'fixtures', 'marian', 'input.txt'))}, 'utf8').split('\\n').join(' ');
  const MODE = process.argv.at(-1);
  const controller = new AbortController();
  const running = t.translate(Array(8).fill(text), { beam: 4, signal: controller.signal });
  // Readbacks run at every step: stop while one is in flight.
  setTimeout(() => (MODE === 'dispose' ? t.dispose() : controller.abort()), 200);
  await running.then(() => console.log('finished first'), (e) => console.log('stopped: ' + e.name));
  // Nothing more to do: the process ends here, with the Worker's GPU step possibly still running.
`;

test('a .gz bomb in a model folder: decompression stops past the limit with ModelTooLargeError', { timeout: BOUND_MS }, async () => {
  const { loadModelFolder, MAX_GUNZIP_BYTES } = await import('../../web/src/model-folder.js');
  const { detectEnvironment } = await import('../../web/src/environment.js');
  assert.equal(MAX_GUNZIP_BYTES, 2 ** 31, "the engine's importer's limit (core/src/marian/gzip.cc)");
  // 64 MiB of zeros in 64 KiB, against a limit of 1 MiB (the same check at 2 GiB would hold 2 GiB
  // of memory in the test).
  const limit = 1 << 20;
  const bomb = gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  assert.ok(bomb.length < 100_000);
  const env = detectEnvironment();
  const load = (files) => bounded(loadModelFolder({ model: { files } }, env, { maxGunzipBytes: limit }), 'the folder');
  await assert.rejects(load([{ name: 'model.npz.gz', data: bomb }, { name: 'vocab.spm', data: new Uint8Array(8) }]), (e) => {
    assert.equal(e.name, 'ModelTooLargeError');
    assert.ok(e instanceof pkg.ModelTooLargeError && e instanceof pkg.ModelFormatError);
    assert.equal(e.model, 'model.npz.gz');
    assert.equal(e.limit, limit);
    assert.match(e.message, /^model\.npz\.gz decompresses to more than 1048576 bytes/);
    return true;
  });
  // Up to the limit a file decompresses whole; one byte more is refused.
  const exact = await load([{ name: 'a.spm.gz', data: gzipSync(Buffer.alloc(limit, 7)) }]);
  assert.equal(exact.files[0].bytes.length, limit);
  assert.ok(exact.files[0].bytes.every((b) => b === 7));
  await assert.rejects(load([{ name: 'a.spm.gz', data: gzipSync(Buffer.alloc(limit + 1)) }]), { name: 'ModelTooLargeError' });
  // A bad .gz stays a ModelFormatError of its own kind.
  await assert.rejects(load([{ name: 'a.spm.gz', data: bomb.subarray(0, 1000) }]), (e) => e.name === 'ModelFormatError' && /not a complete gzip file/.test(e.message));
});

// The text on which trappingBuild()'s engine traps.
const TRAP = 'Dieser Satz bringt die Maschine zum Absturz.';

// The single-threaded build as the package loads it (its `wasmBase`), with one change: before a
// call with the text TRAP, the Translator's own state in wasm memory is pointed past the end of
// that memory, so the engine's next read traps (a RuntimeError: memory access out of bounds), as
// it does when it reads a crafted file's offsets. The instance is broken from then on.
function trappingBuild() {
  const dir = mkdtempSync(path.join(tmpdir(), 'tformer-trap-'));
  const dist = path.join(webDir, 'dist');
  copyFileSync(path.join(dist, 'tformer-st.wasm'), path.join(dir, 'tformer-st.wasm'));
  writeFileSync(path.join(dir, 'tformer-st.mjs'), `
import createModule from ${JSON.stringify(pathToFileURL(path.join(dist, 'tformer-st.mjs')).href)};
export default async function (options) {
  const module = await createModule(options);
  const breakOn = (texts, self) => {
    if (texts[0] !== ${JSON.stringify(TRAP)}) return;
    const words = new DataView(module.HEAPU8.buffer, self.$$.ptr, 64);
    for (let at = 0; at < 64; at += 4) words.setUint32(at, 0xfffffff0, true);
  };
  for (const call of ['translate', 'begin']) {
    const original = module.Translator.prototype[call];
    module.Translator.prototype[call] = function (texts, options) {
      breakOn(texts, this);
      return original.call(this, texts, options);
    };
  }
  return module;
}
`);
  return dir;
}

test('a wasm trap fails its request with EngineStoppedError, and the next requests run on a fresh engine', { timeout: 4 * BOUND_MS }, async () => {
  const dir = trappingBuild();
  try {
    const t = await create({ model: fixtureBytes('marian'), variant: 'single', wasmBase: pathToFileURL(`${dir}/`).href });
    const sentences = golden('marian').sentences;
    const expected = sentences[2].greedy.text;
    assert.equal((await t.translate(sentences[2].text, PLAIN)).text, expected);
    for (const [i, call] of ['translate', 'translateStream'].entries()) {
      const failing = call === 'translate' ? t.translate(TRAP, PLAIN) : (async () => { for await (const s of t.translateStream(TRAP, PLAIN)) assert.ok(s); })();
      // Queued behind the one that traps: it runs on the fresh engine.
      const behind = t.translate(sentences[2].text, PLAIN);
      await assert.rejects(bounded(failing, `${call} of the trapping text`), (e) => {
        assert.equal(e.name, 'EngineStoppedError', e.stack);
        assert.match(e.message, /memory access out of bounds/);
        return true;
      });
      assert.equal((await bounded(behind, 'the request queued behind it')).text, expected);
      assert.equal(t.info.restarts, i + 1);
      assert.equal((await bounded(t.translate(sentences[2].text, PLAIN), 'a later request')).text, expected);
      const streamed = [];
      for await (const s of t.translateStream(sentences[2].text, PLAIN)) streamed.push(s.text);
      assert.deepEqual(streamed, [expected]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const mode of ['abort', 'dispose']) {
  test(`webgpu: the process exits cleanly after a ${mode} with a readback in flight`, { skip: gpuSkip, timeout: 2 * BOUND_MS }, () => {
    const env = { ...process.env };
    if (!env.VK_ICD_FILENAMES) env.VK_ICD_FILENAMES = swiftshader;
    // A script file, not --eval: the engine's Worker inherits node's flags, and --input-type
    // would stop it.
    const dir = mkdtempSync(path.join(tmpdir(), 'tformer-exit-'));
    const script = path.join(dir, 'exit.mjs');
    writeFileSync(script, exitScript);
    const run = spawnSync(process.execPath, [script, mode], { env, encoding: 'utf8', timeout: BOUND_MS });
    rmSync(dir, { recursive: true, force: true });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.signal, null, `killed by ${run.signal}:\n${output}`);
    assert.doesNotMatch(output, /Promise not resolved or rejected/);
    assert.equal(run.status, 0, output);
    assert.match(run.stdout, /stopped: |finished first|no webgpu/);
  });
}
