// The backend selection rule (web/src/select.js) with fake adapters: 'auto' takes WebGPU only on a
// hardware adapter with a model of d_model x vocab >= 2^23, never on a fallback or software
// adapter, never in Node; an explicit 'webgpu' takes any adapter; no adapter means wasm. No GPU,
// no wasm build needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseEngine, decideBackend, describeAdapter, adapterName, AUTO_MIN_PROJECTION } from '../../web/src/select.js';

// Adapters as browsers and Dawn report them (GPUAdapterInfo; older Chromium: adapter.isFallbackAdapter).
const ADAPTERS = {
  nvidia: { info: { vendor: 'nvidia', architecture: 'ada-lovelace', device: '', description: 'NVIDIA GeForce RTX 4070', isFallbackAdapter: false } },
  apple: { info: { vendor: 'apple', architecture: 'metal-3', device: '', description: '' } },
  intel: { info: { vendor: 'intel', architecture: 'gen-12lp', device: '', description: '' }, isFallbackAdapter: false },
  // npm webgpu (Dawn) on Chromium's SwiftShader, as seen on this machine
  swiftshader: { info: { vendor: 'google', architecture: 'swiftshader', device: 'swiftshader-device-subzero-', description: 'SwiftShader driver 5.0.0', isFallbackAdapter: true } },
  // a fallback adapter that says so only through the older attribute, with a hardware-like name
  fallbackOld: { info: { vendor: 'acme', architecture: 'x', device: '', description: '' }, isFallbackAdapter: true },
  // software rasterisers that do not flag themselves as fallback adapters
  llvmpipe: { info: { vendor: 'mesa', architecture: '', device: '', description: 'llvmpipe (LLVM 15.0.6, 256 bits)', isFallbackAdapter: false } },
  warp: { info: { vendor: 'microsoft', architecture: '', device: '', description: 'Microsoft Basic Render Driver' } },
  swiftshaderNoFlag: { info: { vendor: 'google', architecture: 'swiftshader', device: '', description: '' } },
  // no info at all (an old browser): not known to be software
  bare: {},
};

const LARGE = { d_model: 512, vocab_size: 16384 };  // 2^23 exactly: the boundary counts as large
const SMALL = { d_model: 256, vocab_size: 16384 };  // the shipped "tiny" shape: 2^22
const FIXTURE = { d_model: 32, vocab_size: 64 };

test('the threshold is 2^23 = d_model x vocab of d 512 with a 16k vocabulary', () => {
  assert.equal(AUTO_MIN_PROJECTION, 2 ** 23);
  assert.equal(LARGE.d_model * LARGE.vocab_size, AUTO_MIN_PROJECTION);
});

test('describeAdapter: fallback and software adapters are recognised, hardware ones are not', () => {
  for (const name of ['swiftshader', 'fallbackOld', 'llvmpipe', 'warp', 'swiftshaderNoFlag']) {
    assert.equal(describeAdapter(ADAPTERS[name]).software, true, name);
  }
  for (const name of ['nvidia', 'apple', 'intel', 'bare']) assert.equal(describeAdapter(ADAPTERS[name]).software, false, name);
  assert.equal(describeAdapter(ADAPTERS.swiftshader).fallback, true);
  assert.equal(describeAdapter(ADAPTERS.fallbackOld).fallback, true);
  assert.equal(describeAdapter(ADAPTERS.llvmpipe).fallback, false);
  assert.equal(adapterName(describeAdapter(ADAPTERS.swiftshader)),
    'google swiftshader swiftshader-device-subzero- SwiftShader driver 5.0.0 (fallback adapter)');
  assert.equal(adapterName(describeAdapter(ADAPTERS.nvidia)), 'nvidia ada-lovelace NVIDIA GeForce RTX 4070');
  assert.equal(adapterName(null), null);
});

test("auto in a browser: WebGPU only with a hardware adapter and a large model", () => {
  const auto = (adapter, config) => decideBackend({ requested: 'auto', node: false, adapter, config });
  for (const name of ['nvidia', 'apple', 'intel', 'bare']) {
    const d = auto(ADAPTERS[name], LARGE);
    assert.equal(d.backend, 'webgpu', name);
    assert.match(d.reason, /hardware adapter and a large model \(d_model x vocab = 512 x 16384 = 8388608 >= 2\^23\)/);
  }
  for (const name of ['nvidia', 'apple']) {
    const d = auto(ADAPTERS[name], SMALL);
    assert.equal(d.backend, 'wasm', name);
    assert.match(d.reason, /too small to gain from the GPU \(d_model x vocab = 256 x 16384 = 4194304 < 2\^23\)/);
    assert.equal(auto(ADAPTERS[name], FIXTURE).backend, 'wasm');
  }
  for (const name of ['swiftshader', 'fallbackOld', 'llvmpipe', 'warp', 'swiftshaderNoFlag']) {
    const d = auto(ADAPTERS[name], { d_model: 1024, vocab_size: 32768 });
    assert.equal(d.backend, 'wasm', name);
    assert.match(d.reason, /software one .*slower than wasm/, name);
  }
  const none = auto(null, LARGE);
  assert.deepEqual([none.backend, none.reason, none.adapter], ['wasm', 'auto: no WebGPU adapter', null]);
});

test("auto in Node is wasm, whatever the adapter and the model", () => {
  for (const adapter of [ADAPTERS.nvidia, ADAPTERS.swiftshader, null]) {
    const d = decideBackend({ requested: 'auto', node: true, adapter, config: { d_model: 1024, vocab_size: 65536 } });
    assert.equal(d.backend, 'wasm');
    assert.match(d.reason, /auto in Node is wasm/);
  }
});

test("an explicit 'webgpu' takes any adapter, software and small models included; none means wasm", () => {
  for (const node of [false, true]) {
    for (const name of ['swiftshader', 'nvidia', 'llvmpipe']) {
      const d = decideBackend({ requested: 'webgpu', node, adapter: ADAPTERS[name], config: FIXTURE });
      assert.equal(d.backend, 'webgpu', name);
      assert.equal(d.reason, 'asked for');
    }
    const none = decideBackend({ requested: 'webgpu', node, adapter: null, config: FIXTURE });
    assert.equal(none.backend, 'wasm');
    assert.match(none.reason, /no WebGPU adapter/);
  }
});

test('chooseEngine (the page side): whether a GPU may be tried at all', () => {
  const browser = { node: false, crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency: 4, webgpu: true };
  const node = { node: true, crossOriginIsolated: true, sharedArrayBuffer: true, hardwareConcurrency: 2, webgpu: false };
  let c = chooseEngine({}, browser);
  assert.deepEqual([c.backend, c.backendReason, c.warnings], ['webgpu', null, []], 'auto with navigator.gpu: decided in the Worker');
  c = chooseEngine({ backend: 'auto' }, { ...browser, webgpu: false });
  assert.deepEqual([c.backend, c.backendReason], ['wasm', 'auto: no WebGPU in this browser']);
  c = chooseEngine({ backend: 'wasm' }, browser);
  assert.deepEqual([c.backend, c.backendReason], ['wasm', 'asked for']);
  c = chooseEngine({ backend: 'webgpu' }, { ...browser, webgpu: false });
  assert.equal(c.backend, 'wasm');
  assert.match(c.warnings[0], /backend 'webgpu' was asked for, using 'wasm' instead: WebGPU is not available in this environment/);
  c = chooseEngine({}, node);
  assert.deepEqual([c.backend, c.warnings], ['wasm', []]);
  assert.match(c.backendReason, /auto in Node is wasm/);
  c = chooseEngine({ backend: 'webgpu' }, node);
  assert.deepEqual([c.backend, c.warnings], ['webgpu', []], "Node: the Worker tries npm 'webgpu'");
});

test("the engine's fallback warning says once what was asked for", async () => {
  const { Engine } = await import('../../web/src/engine.js');
  const engine = new Engine(null, null, 'single', {});
  engine.noAdapter('there is no WebGPU adapter');
  assert.deepEqual(engine.warnings, ["backend 'webgpu' was asked for, using 'wasm' instead: there is no WebGPU adapter"]);
  assert.equal(engine.backendReason, 'webgpu was asked for, but there is no WebGPU adapter');
});

test('chooseEngine: a cross-origin-isolated page that has no SharedArrayBuffer (WebKitGTK) runs single-threaded and says why', () => {
  const webkit = { node: false, crossOriginIsolated: true, sharedArrayBuffer: false, hardwareConcurrency: 4, webgpu: false, worker: 'web-worker' };
  let c = chooseEngine({}, webkit);
  assert.deepEqual([c.variant, c.threads], ['single', 1]);
  assert.deepEqual(c.warnings, ['this page is cross-origin isolated, but this browser gives it no SharedArrayBuffer: the single-threaded build runs']);
  c = chooseEngine({ variant: 'threaded', threads: 2 }, webkit);
  assert.equal(c.variant, 'single');
  assert.deepEqual(c.warnings, ['the threaded build needs SharedArrayBuffer: this page is cross-origin isolated, but this browser gives it no ' +
    'SharedArrayBuffer; using the single-threaded build', '2 threads were asked for, but the single-threaded build runs on one']);
  // Not isolated: the headers are what is missing, and 'auto' picking single needs no word.
  c = chooseEngine({}, { ...webkit, crossOriginIsolated: false });
  assert.deepEqual([c.variant, c.warnings], ['single', []]);
  // A Service Worker (no Workers): its own reason, not this one.
  c = chooseEngine({}, { ...webkit, worker: null });
  assert.deepEqual([c.variant, c.warnings], ['single', []]);
});
