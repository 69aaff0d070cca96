// The npm package's API under Node (node --test): translations equal the golden fixtures, the
// result shape, every kind of bad input, abort of queued and running requests, concurrency,
// and model loading (progress, cache, sha256 refusal and re-fetch, registry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { detectEnvironment } from '../../web/src/environment.js';
import { PLAIN, fixtureBytes, fixturePath, golden, packageUnderTest, MemoryCache } from './helpers.mjs';

const { pkg, create } = await packageUnderTest();

const expectedGreedy = (name) => golden(name).sentences.map((s) => s.greedy);

for (const variant of ['threaded', 'single']) {
  test(`${variant}: translations equal the PyTorch reference's on the fixtures`, async () => {
    for (const name of ['marian', 'tutorial']) {
      const t = await create({ model: fixturePath(name), variant, threads: 2 });
      assert.equal(t.info.variant, variant);
      assert.equal(t.info.threads, variant === 'threaded' ? 2 : 1);
      const g = golden(name);
      const results = await t.translate(g.sentences.map((s) => s.text), PLAIN);
      results.forEach((r, i) => {
        const want = g.sentences[i].greedy;
        assert.equal(r.text, want.text, `${name} sentence ${i}`);
        assert.deepEqual(Array.from(r.tokens), want.tokens, `${name} sentence ${i} tokens`);
        assert.ok(Math.abs(r.score - want.score) < 1e-4, `${name} sentence ${i} score ${r.score} vs ${want.score}`);
      });
      // beam 4 n-best against the reference too
      const beam = await t.translate(g.sentences[0].text, { beam: 4, nbest: 4, ...PLAIN });
      assert.deepEqual(beam.sentences[0].nbest.map((h) => Array.from(h.tokens)), g.sentences[0].beam.map((h) => h.tokens));
      t.dispose();
    }
  });
}

test('info says what runs; auto in Node is wasm', async () => {
  // backend 'webgpu' in Node (npm webgpu): tests/webgpu/package.test.mjs
  const t = await create({ model: fixtureBytes('marian'), backend: 'wasm', threads: 2 });
  const info = t.info;
  // Node always has SharedArrayBuffer; node 22+ also validates relaxed SIMD (node 20 does not).
  assert.equal(info.variant, detectEnvironment().relaxedSimd ? 'relaxed' : 'threaded');
  assert.equal(info.backend, 'wasm');
  assert.equal(info.requestedBackend, 'wasm');
  assert.equal(info.backendReason, 'asked for');
  assert.equal(info.adapter, null);
  assert.equal(info.gpu, null);
  assert.equal(info.engine, 'xnnpack');
  assert.equal(info.kernels, 'xnnpack', 'kernels: the name of the kernel library; engine: its deprecated alias');
  assert.equal(info.worker, 'worker_threads');
  assert.deepEqual(info.warnings, []);
  assert.equal(info.model.name, 'fixture-marian');
  assert.equal(info.model.config.d_model, 32);
  assert.equal(info.model.source, 'memory');
  assert.equal(info.load.bytes, fixtureBytes('marian').byteLength);
  assert.equal(info.load.gpuMs, null);
  assert.ok(info.load.totalMs > 0);
  assert.ok(info.memory.wasmBytes > info.load.bytes);
  assert.equal(info.memory.gpuWeightBytes, 0);
  assert.equal(info.memory.keptModelBytes, info.load.bytes);
  const r = await t.translate('Die Katze schläft.', PLAIN);
  assert.equal(r.timings.backend, 'wasm');
  assert.equal(r.timings.gpu, null);
  const auto = await create({ model: fixtureBytes('marian') });
  assert.equal(auto.info.backend, 'wasm');
  assert.match(auto.info.backendReason, /auto in Node is wasm/);
  assert.deepEqual(auto.info.warnings, []);
});

test('chooseEngine: variant, threads and backend from the environment', () => {
  const env = { crossOriginIsolated: false, sharedArrayBuffer: true, hardwareConcurrency: 8, webgpu: true };
  let c = pkg.chooseEngine({ threads: 4 }, env);
  assert.deepEqual([c.variant, c.threads, c.backend], ['single', 1, 'webgpu']);
  assert.match(c.warnings[0], /4 threads were asked for, but the single-threaded build runs on one \(this page is not cross-origin isolated\)/);
  c = pkg.chooseEngine({ variant: 'threaded' }, env);
  assert.equal(c.variant, 'single');
  assert.match(c.warnings[0], /needs SharedArrayBuffer/);
  c = pkg.chooseEngine({}, { ...env, crossOriginIsolated: true });
  assert.deepEqual([c.variant, c.threads, c.warnings], ['threaded', 4, []]);
  c = pkg.chooseEngine({ threads: 9 }, { ...env, crossOriginIsolated: true, hardwareConcurrency: 2 });
  assert.equal(c.threads, 3);
  assert.match(c.warnings[0], /9 threads were asked for; the pool of this machine allows 3/);
  c = pkg.chooseEngine({ backend: 'webgpu' }, env);
  assert.deepEqual([c.backend, c.warnings], ['webgpu', []]);
  c = pkg.chooseEngine({ backend: 'webgpu' }, { ...env, webgpu: false });
  assert.equal(c.backend, 'wasm');
  assert.match(c.warnings[0], /WebGPU is not available in this environment/);
  // the rule of 'auto' with fake adapters: tests/web/select.test.mjs
});

test('chooseEngine: the relaxed-SIMD build where relaxed SIMD validates and threads are possible', () => {
  const isolated = { crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency: 4, webgpu: false };
  let c = pkg.chooseEngine({}, { ...isolated, relaxedSimd: true });
  assert.deepEqual([c.variant, c.threads, c.warnings], ['relaxed', 4, []]);
  c = pkg.chooseEngine({}, { ...isolated, relaxedSimd: false });
  assert.deepEqual([c.variant, c.warnings], ['threaded', []]);
  c = pkg.chooseEngine({ variant: 'threaded' }, { ...isolated, relaxedSimd: true });
  assert.deepEqual([c.variant, c.warnings], ['threaded', []]);  // asked for: kept
  c = pkg.chooseEngine({ variant: 'relaxed' }, { ...isolated, relaxedSimd: false });
  assert.equal(c.variant, 'threaded');
  assert.match(c.warnings[0], /does not validate relaxed SIMD; using the threaded build/);
  c = pkg.chooseEngine({ variant: 'relaxed' }, { ...isolated, crossOriginIsolated: false, relaxedSimd: true });
  assert.equal(c.variant, 'single');
  assert.match(c.warnings[0], /the relaxed build needs SharedArrayBuffer/);
  c = pkg.chooseEngine({}, { ...isolated, crossOriginIsolated: false, relaxedSimd: true });
  assert.deepEqual([c.variant, c.warnings], ['single', []]);
});

test('detectEnvironment: node 20 does not validate relaxed SIMD, so the threaded build runs', async () => {
  const { detectEnvironment } = await import('../../web/src/environment.js');
  const env = detectEnvironment();
  // V8 11.3 (node 20) rejects relaxed-SIMD opcodes unless --experimental-wasm-relaxed-simd; a
  // newer node would say yes, and that is fine too: only the answer's type is fixed here.
  assert.equal(typeof env.relaxedSimd, 'boolean');
  if (Number(process.versions.node.split('.')[0]) === 20) assert.equal(env.relaxedSimd, false);
  const t = await create({ model: fixtureBytes('marian') });
  assert.equal(t.info.variant, env.relaxedSimd ? 'relaxed' : 'threaded');
});

test('result shape: tokens, score, timings, alignment ready to draw', async () => {
  const t = await create({ model: fixturePath('marian') });
  const g = golden('marian');
  const r = await t.translate(g.sentences[0].text, { alignment: true });
  const s = r.sentences[0];
  assert.equal(r.sentences.length, 1);
  assert.ok(r.tokens instanceof Int32Array);
  assert.deepEqual(Array.from(s.sourceTokens), g.sentences[0].source_ids);
  assert.equal(s.sourcePieces.length, s.sourceTokens.length);
  assert.equal(s.targetPieces.length, s.tokens.length);
  const a = r.alignment;
  assert.deepEqual([a.sourcePieces, a.targetPieces], [s.sourcePieces, s.targetPieces]);
  assert.ok(a.weights instanceof Float32Array);
  assert.equal(a.weights.length, a.sourcePieces.length * a.targetPieces.length);
  for (let row = 0; row < a.targetPieces.length; row++) {
    const sum = a.weights.subarray(row * a.sourcePieces.length, (row + 1) * a.sourcePieces.length).reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-4, `row ${row} sums to ${sum}`);
  }
  for (const key of ['queueMs', 'translateMs', 'totalMs', 'targetTokens', 'tokensPerSecond']) assert.equal(typeof r.timings[key], 'number', key);
  assert.equal(r.timings.targetTokens, r.tokens.length);
  assert.ok(r.timings.totalMs >= r.timings.translateMs);
  assert.equal((await t.translate('Die Katze schläft.', PLAIN)).alignment, undefined, 'no alignment unless asked');

  // Two sentences: their matrices on the diagonal of the paragraph's alignment.
  const two = await t.translate(`${g.sentences[0].text} ${g.sentences[2].text}`, { alignment: true });
  assert.equal(two.sentences.length, 2);
  const [s0, s1] = two.sentences;
  const A = two.alignment;
  assert.equal(A.sourcePieces.length, s0.sourcePieces.length + s1.sourcePieces.length);
  assert.equal(A.targetPieces.length, s0.targetPieces.length + s1.targetPieces.length);
  const cols = A.sourcePieces.length;
  const at = (r0, c0) => A.weights[r0 * cols + c0];
  assert.equal(at(0, s0.sourcePieces.length), 0, 'first sentence does not look at the second');
  assert.equal(at(s0.targetPieces.length, 0), 0, 'second sentence does not look at the first');
  assert.equal(at(s0.targetPieces.length, s0.sourcePieces.length), s1.alignment.weights[0]);
  assert.deepEqual(Array.from(two.tokens), [...s0.tokens, ...s1.tokens]);
  assert.ok(Math.abs(two.score - (s0.score + s1.score) / 2) < 1e-6);
  assert.equal(two.text, `${s0.text} ${s1.text}`);
});

test('bad input: clear errors, and the translator keeps working', async () => {
  const { Translator } = pkg;
  const bytes = fixtureBytes('marian');
  const noise = new Uint8Array(4096).map((_, i) => (i * 7919) & 255);
  await assert.rejects(Translator.create({ model: noise }), /bad magic: this is not a \.tfm model file/);
  await assert.rejects(Translator.create({ model: bytes.subarray(0, bytes.length / 2) }), /truncated at tensor/);
  await assert.rejects(Translator.create({ model: bytes.subarray(0, 10) }), /too small for a \.tfm model/);
  await assert.rejects(Translator.create({ model: new ArrayBuffer(0) }), /too small/);
  await assert.rejects(Translator.create(), { name: 'TypeError', message: /options with a 'model' are required/ });
  await assert.rejects(Translator.create({}), /option 'model' is required/);
  await assert.rejects(Translator.create({ model: 42 }), /option 'model' must be a URL/);
  await assert.rejects(Translator.create({ model: bytes, threads: 'two' }), { name: 'TypeError', message: "Translator.create: option 'threads' must be an integer (got the string \"two\")" });
  await assert.rejects(Translator.create({ model: bytes, threads: 0 }), { name: 'RangeError', message: /between 1 and 9 \(got 0\)/ });
  await assert.rejects(Translator.create({ model: bytes, backend: 'gpu' }), /option 'backend' must be one of 'auto', 'wasm', 'webgpu'/);
  await assert.rejects(Translator.create({ model: bytes, modle: 1 }), /unknown option 'modle'/);
  await assert.rejects(Translator.create({ model: bytes, onFallback: 'warn' }), { name: 'TypeError', message: /option 'onFallback' must be a function/ });
  await assert.rejects(Translator.create({ model: bytes, sha256: 'abc' }), /64 hexadecimal digits/);
  await assert.rejects(Translator.create({ model: '/no/such/model.tfm' }), { name: 'ModelLoadError', message: /could not read the model file \/no\/such\/model\.tfm: ENOENT/ });
  await assert.rejects(Translator.create({ model: bytes, sha256: '0'.repeat(64) }), /sha256 mismatch, expected 0{64}, got [0-9a-f]{64}/);
  // A registry entry's sha256 and size: malformed is a TypeError, not a mismatch; a file: path's size
  // is checked without a sha256.
  await assert.rejects(Translator.create({ model: { url: fixturePath('marian'), sha256: 'xyz' } }),
    { name: 'TypeError', message: /the model's 'sha256' must be 64 hexadecimal digits \(got "xyz"\)/ });
  await assert.rejects(Translator.create({ model: { url: fixturePath('marian'), size: 'big' } }),
    { name: 'TypeError', message: /the model's 'size' must be a whole number of bytes/ });
  await assert.rejects(Translator.create({ model: { url: fixturePath('marian'), size: 123 } }),
    { name: 'ModelLoadError', message: /expected 123 bytes, got [0-9]+/ });

  const t = await create({ model: bytes });
  const expected = golden('marian').sentences[2].greedy.text;
  const stillWorks = async () => assert.equal((await t.translate('Die Katze schläft.', PLAIN)).text, expected);

  const empty = await t.translate('');
  assert.deepEqual([empty.text, empty.sentences.length, empty.tokens.length, empty.score], ['', 0, 0, 0]);
  assert.deepEqual((await t.translate(['', '  '])).map((r) => r.text), ['', '']);
  assert.deepEqual(await t.translate([]), []);
  await assert.rejects(t.translate('a\uD800b'), { message: 'input text 1 is not valid Unicode: lone UTF-16 surrogate at index 1' });
  await assert.rejects(t.translate(['ok', '\uDFFF']), /input text 2 is not valid Unicode: lone UTF-16 surrogate at index 0/);
  await stillWorks();
  await assert.rejects(t.translate(42), { name: 'TypeError', message: 'translate: text must be a string or an array of strings (got number 42)' });
  await assert.rejects(t.translate(['x', null]), /item 1 of the array is not a string \(got null\)/);
  await assert.rejects(t.translate('x', { beam: '4' }), { name: 'TypeError', message: "translate: option 'beam' must be an integer (got the string \"4\")" });
  await assert.rejects(t.translate('x', { beam: 2.5 }), /option 'beam' must be an integer/);
  await assert.rejects(t.translate('x', { beam: 0 }), { name: 'RangeError', message: /between 1 and 64 \(got 0\)/ });
  // The upper bound is the engine's (kMaxBeamSize, read through Module.limits()), checked up front.
  await assert.rejects(t.translate('x', { beam: 65 }), { name: 'RangeError', message: /option 'beam' must be between 1 and 64 \(got 65\)/ });
  await assert.rejects(t.translate('x', { beam: 2, nbest: 3 }), /'nbest' \(3\) cannot exceed 'beam' \(2\)/);
  await assert.rejects(t.translate('x', { alignment: 'yes' }), /option 'alignment' must be true or false/);
  await assert.rejects(t.translate('x', { beamSize: 4 }), /unknown option 'beamSize' \(known: beam, maxLength/);
  await assert.rejects(t.translate('x', { signal: 'stop' }), /option 'signal' must be an AbortSignal/);
  await assert.rejects(t.translate('x', 'fast'), /options must be an object/);
  await stillWorks();

  // 200 KB in one input (past the default maxInputChars, lifted): split into sentences and
  // translated; the maxLength limit holds.
  const huge = 'Hund Katze spielen im Schnee. '.repeat(7000);
  const r = await t.translate(huge, { maxLength: 8, maxInputChars: 0 });
  assert.equal(r.sentences.length, 7000);
  assert.ok(r.sentences.every((s) => s.tokens.length <= 8));
  await stillWorks();
  assert.equal(t.info.restarts, 0, 'errors do not restart the engine');
});

test("maxLength is bounded by the engine's rule, not by a copy in the package; engine refusals in the engine's words", async () => {
  const t = await create({ model: fixtureBytes('marian') });
  const text = golden('marian').sentences[2].text;
  const plain = await t.translate(text);
  // Past the model's positions the engine's length rule decides: the same translation.
  assert.equal((await t.translate(text, { maxLength: 100000 })).text, plain.text);
  assert.equal((await t.translate(text, { maxLength: 2 ** 31 - 1 })).text, plain.text);
  await assert.rejects(t.translate(text, { maxLength: -1 }), { name: 'RangeError', message: "translate: option 'maxLength' must be between 0 and 2147483647 (got -1)" });
  await assert.rejects(t.translate(text, { maxLength: 2 ** 31 }), { name: 'RangeError', message: /option 'maxLength' must be between 0 and 2147483647/ });
  // The wasm call that refused (translate) is not named: the caller called the package's translate().
  await assert.rejects(t.translate('x'.repeat(11), { maxInputChars: 10 }),
    { message: 'input text 1 has 11 characters, more than the limit of 10 per input' });
  assert.equal((await t.translate(text)).text, plain.text);
});

test('abort: a queued request is removed, a running one is stopped and the engine restarted', async () => {
  const t = await create({ model: fixturePath('marian'), threads: 1 });
  const huge = 'Hund Katze spielen im Schnee. '.repeat(3000);
  const started = performance.now();
  await t.translate(huge);
  const fullMs = performance.now() - started;

  // queued: the first runs, the second waits and is cancelled; the third still runs.
  const queued = new AbortController();
  const first = t.translate(huge);
  const second = t.translate('Die Katze schläft.', { signal: queued.signal });
  const third = t.translate('Warum?', PLAIN);
  queued.abort();
  await assert.rejects(second, { name: 'AbortError' });
  assert.equal((await first).sentences.length, 3000);
  assert.equal((await third).text, golden('marian').sentences[4].greedy.text);
  assert.equal(t.info.restarts, 0, 'removing a queued request does not touch the engine');

  // an already aborted signal rejects at once, with the signal's own reason
  await assert.rejects(t.translate('x', { signal: AbortSignal.abort(new Error('too late')) }), /too late/);

  // running: abort a long translation a little after it started.
  const running = new AbortController();
  const t0 = performance.now();
  const long = t.translate(huge, { signal: running.signal });
  const after = t.translate('Die Katze schläft.', PLAIN);
  setTimeout(() => running.abort(), Math.min(100, fullMs / 4));
  await assert.rejects(long, { name: 'AbortError' });
  const abortedMs = performance.now() - t0;
  assert.ok(abortedMs < fullMs * 0.75, `the abort took ${abortedMs.toFixed(0)} ms, a full translation ${fullMs.toFixed(0)} ms`);
  assert.equal((await after).text, golden('marian').sentences[2].greedy.text, 'the queued request runs on the fresh engine');
  assert.equal(t.info.restarts, 1);
  const again = await t.translate(golden('marian').sentences.map((s) => s.text), PLAIN);
  assert.deepEqual(again.map((r) => r.text), expectedGreedy('marian').map((g) => g.text));
});

test('concurrency: many calls at once give the same results as one after another', async () => {
  const [a, b] = [await create({ model: fixturePath('marian') }), await create({ model: fixturePath('tutorial'), variant: 'single' })];
  const texts = golden('marian').sentences.map((s) => s.text);
  const requests = [];
  for (let i = 0; i < 40; i++) {
    const text = texts[i % texts.length];
    const options = i % 3 === 0 ? { beam: 4 } : i % 3 === 1 ? { alignment: true } : {};
    requests.push({ t: i % 2 ? a : b, input: i % 5 === 0 ? [text, texts[(i + 1) % texts.length]] : text, options });
  }
  const sequential = [];
  for (const r of requests) sequential.push(await r.t.translate(r.input, r.options));
  const concurrent = await Promise.all(requests.map((r) => r.t.translate(r.input, r.options)));
  const strip = (x) => (Array.isArray(x) ? x.map(strip) : {
    text: x.text, tokens: Array.from(x.tokens), score: x.score, alignment: x.alignment && Array.from(x.alignment.weights),
  });
  assert.deepEqual(concurrent.map(strip), sequential.map(strip));
  assert.ok(concurrent.some((r) => !Array.isArray(r) && r.timings.queueMs > 0), 'requests did wait in the queue');
});

test('dispose rejects what is queued and running; the translator is unusable after', async () => {
  const t = await create({ model: fixturePath('marian') });
  const huge = 'Hund Katze spielen im Schnee. '.repeat(2000);
  const running = t.translate(huge);
  const queued = t.translate('Warum?');
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.dispose();
  await assert.rejects(running, /this Translator was disposed/);
  await assert.rejects(queued, /this Translator was disposed/);
  await assert.rejects(t.translate('x'), /this Translator was disposed/);
});

// A server for the model files: counts requests, can send slowly, serve changed bytes, or fail.
async function modelServer() {
  const model = readFileSync(fixturePath('marian'));
  const state = { requests: 0, body: model, status: 200, chunk: 16384, delayMs: 15 };
  const server = http.createServer(async (req, res) => {
    state.requests++;
    if (req.url === '/registry.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ format: 'tformer-registry', version: 1, models: [
        { id: 'fixture-marian', from: 'de', to: 'en', url: 'models/marian/model.tfm', size: model.length, sha256: state.sha256 },
      ] }));
      return;
    }
    if (state.status !== 200) {
      res.writeHead(state.status).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': state.body.length });
    for (let at = 0; at < state.body.length; at += state.chunk) {
      res.write(state.body.subarray(at, at + state.chunk));
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${server.address().port}/models/marian/model.tfm`;
  state.base = `http://127.0.0.1:${server.address().port}/`;
  state.sha256 = await pkg.sha256Hex(model);
  state.close = () => new Promise((resolve) => server.close(resolve));
  return state;
}

test('model download: progress events, cache, sha256 refusal and re-fetch', async () => {
  const server = await modelServer();
  try {
    const cache = new MemoryCache();
    const size = server.body.length;
    const events = [];
    const first = await create({ model: server.url, sha256: server.sha256, cache, onProgress: (e) => events.push(e) });
    assert.equal(server.requests, 1);
    const downloads = events.filter((e) => e.phase === 'download');
    assert.ok(downloads.length >= 3, `${downloads.length} download events`);
    assert.deepEqual([downloads[0].loaded, downloads[0].total], [0, size]);
    assert.deepEqual([downloads.at(-1).loaded, downloads.at(-1).total], [size, size]);
    assert.ok(downloads.some((e) => e.loaded > 0 && e.loaded < size), 'intermediate progress');
    assert.ok(downloads.every((e, i) => i === 0 || e.loaded >= downloads[i - 1].loaded), 'monotonic');
    assert.deepEqual(events.slice(-2).map((e) => e.phase), ['starting', 'ready']);
    assert.equal(first.info.load.fromCache, false);
    assert.equal(first.info.model.source, 'network');
    assert.equal(first.info.model.sha256, server.sha256);
    assert.equal(cache.entries.size, 1);
    const expected = golden('marian').sentences[2].greedy.text;
    assert.equal((await first.translate('Die Katze schläft.', PLAIN)).text, expected);

    // Second visit: from the cache, no request.
    const cachedEvents = [];
    const second = await create({ model: server.url, sha256: server.sha256, cache, onProgress: (e) => cachedEvents.push(e) });
    assert.equal(server.requests, 1, 'no download the second time');
    assert.equal(second.info.load.fromCache, true);
    assert.deepEqual(cachedEvents[0], { phase: 'loaded', loaded: size, total: size, fromCache: true });
    assert.equal((await second.translate('Die Katze schläft.', PLAIN)).text, expected);

    // A corrupted cache entry is refused and the model downloaded again.
    const entry = cache.entries.get(server.url);
    entry.body[entry.body.length - 100] ^= 0xff;
    const refetchEvents = [];
    const third = await create({ model: server.url, sha256: server.sha256, cache, onProgress: (e) => refetchEvents.push(e) });
    assert.equal(server.requests, 2, 'downloaded again');
    assert.ok(refetchEvents.some((e) => e.phase === 'refetch'));
    assert.match(third.info.warnings.join(), /cached copy of .* did not match its sha256 .*: it was deleted and the model downloaded again/);
    assert.equal(third.info.load.fromCache, false);
    assert.equal(await pkg.sha256Hex(cache.entries.get(server.url).body), server.sha256, 'the cache holds a good copy again');
    // Without a sha256 given, the hash recorded at download time still catches a damaged entry.
    cache.entries.get(server.url).body[7] ^= 1;
    const fourth = await create({ model: server.url, cache });
    assert.equal(server.requests, 3);
    assert.match(fourth.info.warnings.join(), /did not match its sha256/);

    // The server's file changed: it does not match the registry's sha256 and is refused, not cached.
    const fresh = new MemoryCache();
    server.body = Buffer.from(server.body);
    server.body[5000] ^= 0xff;
    await assert.rejects(create({ model: server.url, sha256: server.sha256, cache: fresh }),
      { name: 'ModelLoadError', message: new RegExp(`sha256 mismatch, expected ${server.sha256}, got [0-9a-f]{64} \\(the file changed or is corrupted; it was not used\\)`) });
    assert.equal(fresh.entries.size, 0);
    // A wrong size is refused as well.
    await assert.rejects(create({ model: server.url, size: 12, cache: false }), /expected 12 bytes, got 119509/);
    server.status = 404;
    await assert.rejects(create({ model: server.url, cache: fresh }), { name: 'ModelLoadError', message: /could not download the model .*: HTTP 404/ });
    server.status = 200;

    // An abort during the download.
    server.body = readFileSync(fixturePath('marian'));
    server.delayMs = 200;
    const controller = new AbortController();
    const loading = create({ model: server.url, cache: false, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(loading, { name: 'AbortError' });
    server.delayMs = 0;

    // A registry entry brings its url, size and sha256.
    const registry = await pkg.loadRegistry(`${server.base}registry.json`);
    assert.equal(registry.models[0].url, server.url);
    assert.equal(pkg.findModels(registry, { from: 'de', to: 'en' }).length, 1);
    assert.equal(pkg.findModels(registry, { from: 'en' }).length, 0);
    const viaRegistry = await create({ model: registry.models[0], cache });
    assert.equal(viaRegistry.info.model.sha256, server.sha256);
    assert.equal((await viaRegistry.translate('Die Katze schläft.', PLAIN)).text, expected);
    assert.throws(() => pkg.parseRegistry({ format: 'tformer-registry', version: 1, models: [{ id: 'x' }] }, server.base), /model 0 has no 'from'/);
    assert.throws(() => pkg.parseRegistry({ models: [] }, server.base), /is not a tformer registry/);
  } finally {
    await server.close();
  }
});

test('the model bytes given are copied: the caller may reuse its buffer, restarts still work', async () => {
  const bytes = fixtureBytes('marian');
  const t = await create({ model: bytes, variant: 'single' });
  bytes.fill(0);
  const controller = new AbortController();
  const long = t.translate('Hund Katze spielen im Schnee. '.repeat(3000), { signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(long, { name: 'AbortError' });
  assert.equal((await t.translate('Die Katze schläft.', PLAIN)).text, golden('marian').sentences[2].greedy.text);
  assert.equal(t.info.restarts, 1);
});

test('a Worker that dies under a translation fails that request; the next one gets a fresh engine', async () => {
  const t = await create({ model: fixturePath('marian'), variant: 'single' });
  const long = t.translate('Hund Katze spielen im Schnee. '.repeat(3000));
  const queued = t.translate('Die Katze schläft.', PLAIN);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.host.worker.terminate();  // as if the engine ran out of memory: the thread is gone
  await assert.rejects(long, { name: 'EngineStoppedError', message: /the translation engine stopped: its worker thread exited/ });
  assert.equal((await queued).text, golden('marian').sentences[2].greedy.text);
});
