// The demo's service worker: keeps the page's own files (HTML, JS, CSS, the wasm builds) so
// that the demo opens with no network after one visit. Network first, so an online visit always
// gets current files; the cache answers when the network cannot. Models are not handled here:
// tformer-wasm keeps them in the Cache API itself, checked against their sha256.
// Registered with scope /web/ (the page, the package's Worker in ../src and the wasm in ../dist);
// a scope above the script's folder needs the Service-Worker-Allowed header (scripts/serve.mjs).
const CACHE = 'tformer-demo-v12';
const PRECACHE = [
  './', 'demo.js', 'demo.css', 'heatmap.js', 'markdown.js', 'own-model.js', 'glossary-editor.js', 'confidence-marks.js', 'page.js',
  'page-languages.js', 'page.css', 'favicon.svg', 'registry.json',
  '../src/index.js', '../src/errors.js', '../src/translator.js', '../src/environment.js', '../src/select.js', '../src/options.js',
  '../src/model-loader.js', '../src/model-folder.js', '../src/registry.js', '../src/wasm-files.js', '../src/engine-host.js',
  '../src/request-queue.js', '../src/worker.js', '../src/engine.js', '../src/alignment.js', '../src/catalog.js', '../src/results.js', '../src/run-session.js',
  '../src/chunks.js', '../src/stream-schedule.js', '../src/glossary.js',
  '../src/detection.js', '../src/detectable-languages.js', '../src/polyfill.js', '../src/standard/catalogue.js',
  '../src/glue.js', '../src/in-thread-host.js', '../src/polyfill-service-worker.js', '../src/memory.js', '../src/text-memory.js', '../src/page.js', '../src/page-merge.js',
  '../src/standard/language-detector.js', '../src/standard/language-tags.js', '../src/standard/model-object.js',
  '../src/standard/translator.js', '../src/standard/permissions.js', '../src/standard/shared-engines.js',
  '../src/standard/webidl.js', '../src/fetch-failure.js', '../src/iterable-stream.js', '../src/native-apis.js',
  '../src/webgpu/backend.js', '../src/webgpu/encoder.js', '../src/webgpu/half.js', '../src/webgpu/index.js',
  '../src/webgpu/ops.js', '../src/webgpu/runtime.js',
  '../src/webgpu/kernels/attention.js', '../src/webgpu/kernels/elementwise.js', '../src/webgpu/kernels/layer_norm.js',
  '../src/webgpu/kernels/matmul.js', '../src/webgpu/kernels/softmax.js', '../src/webgpu/kernels/top_k.js',
  '../dist/tformer-mt.mjs', '../dist/tformer-mt.wasm', '../dist/tformer-mt.worker.js',
  '../dist/tformer-st.mjs', '../dist/tformer-st.wasm',
];
// The relaxed-SIMD build is optional (web/scripts/build.mjs): kept when the server has it.
const OPTIONAL = ['../dist/tformer-mtr.mjs', '../dist/tformer-mtr.wasm', '../dist/tformer-mtr.worker.js'];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(PRECACHE.map((p) => new URL(p, self.location.href).href));
    await Promise.allSettled(OPTIONAL.map((p) => cache.add(new URL(p, self.location.href).href)));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith('tformer-demo-') && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.endsWith('.tfm')) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (e) {
      const cached = await cache.match(request, { ignoreSearch: true });
      if (cached) return cached;
      throw e;
    }
  })());
});
