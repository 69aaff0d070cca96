// The demo page: pick a direction from the model registry, type, and read the translation and
// the attention behind it. Everything runs through the package's public API (../src/index.js).
import { Translator, loadRegistry } from '../src/index.js';
import { drawHeatmap } from './heatmap.js';

const $ = (id) => document.getElementById(id);
const ui = {
  direction: $('direction'), swap: $('swap'), beam: $('beam'), backend: $('backend'), compute: $('compute'), source: $('source'), output: $('output'),
  timing: $('timing'), loading: $('loading'), progress: $('progress'), progressText: $('progress-text'),
  error: $('error'), engine: $('engine'), warnings: $('warnings'), heatmap: $('heatmap'),
  testNote: $('test-model-note'), sourceLabel: $('source-label'), targetLabel: $('target-label'),
};
const EXAMPLES = {
  de: 'Die Katze schläft auf dem Sofa.',
  en: 'The cat is sleeping on the sofa.',
};
const DEBOUNCE_MS = 250;
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const language = (code) => { try { return languageNames.of(code); } catch { return code; } };
const params = new URLSearchParams(location.search);

let registry = null;
let translator = null;
let loadToken = 0;       // which model load is current (a newer selection supersedes an older one)
let inFlight = null;     // AbortController of the translation being shown
let debounce = 0;

function setState(state) {
  document.body.dataset.state = state;
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
}

function mib(bytes) {
  return `${(bytes / 1048576).toFixed(bytes < 1048576 ? 2 : 1)} MiB`;
}

function onProgress(event) {
  if (event.phase === 'download') {
    ui.loading.hidden = false;
    ui.progress.max = event.total || 1;
    ui.progress.value = event.total ? event.loaded : 0;
    if (!event.total) ui.progress.removeAttribute('value');
    ui.progressText.textContent = `downloading the model: ${mib(event.loaded)}${event.total ? ` of ${mib(event.total)}` : ''}`;
  } else if (event.phase === 'loaded') {
    ui.progress.max = 1;
    ui.progress.value = 1;
    ui.progressText.textContent = event.fromCache ? 'model read from this browser\'s cache' : 'model loaded';
  } else if (event.phase === 'refetch') {
    ui.progressText.textContent = 'the cached model was outdated or damaged: downloading it again';
  } else if (event.phase === 'starting') {
    ui.progressText.textContent = `starting the engine (${event.variant === 'single' ? 'single thread' : `${event.threads} threads`})`;
  }
}

// The Compute switch: auto / wasm / webgpu, also ?backend= in the URL.
const BACKENDS = ['auto', 'wasm', 'webgpu'];
function wantedBackend() {
  return BACKENDS.includes(ui.backend.value) ? ui.backend.value : 'auto';
}

// Which backend computes, and why (info.backend, backendReason, adapter); updated after a fallback.
function describeCompute(info) {
  const label = info.backend === 'webgpu' ? 'WebGPU' : 'wasm (CPU)';
  ui.compute.textContent = `compute: ${label}` + (info.requestedBackend !== info.backend ? ` (asked: ${info.requestedBackend})` : '') +
    ` — ${info.backendReason}` + (info.adapter ? ` | adapter: ${info.adapter}` : '');
  ui.compute.dataset.backend = info.backend;
  ui.warnings.textContent = info.warnings.join(' ');
  ui.warnings.hidden = info.warnings.length === 0;
}

function describeEngine(info) {
  const build = { relaxed: 'relaxed-SIMD build (relaxed SIMD + threads)', threaded: 'threaded build (SIMD + threads)' }[info.variant] ??
    'single-threaded build (SIMD)';
  const source = info.load.fromCache ? 'from cache' : 'downloaded';
  ui.engine.textContent = `backend: ${info.backend} (${info.engine}), ${build}, ${info.threads} thread${info.threads > 1 ? 's' : ''}` +
    ` | model ${info.model.name ?? ''} ${mib(info.load.bytes)} ${source}, ready in ${Math.round(info.load.totalMs)} ms` +
    (info.crossOriginIsolated ? '' : ' | page not cross-origin isolated');
  ui.engine.dataset.variant = info.variant;
  ui.engine.dataset.threads = String(info.threads);
  describeCompute(info);
}

async function selectModel(entry) {
  const token = ++loadToken;
  inFlight?.abort();
  translator?.dispose();
  translator = null;
  setState('loading');
  showError('');
  ui.source.disabled = true;
  ui.testNote.hidden = !entry.test;
  $('model-about').hidden = !entry.readme;
  if (entry.readme) $('model-readme').href = entry.readme;
  ui.sourceLabel.textContent = language(entry.from);
  ui.targetLabel.textContent = language(entry.to);
  ui.loading.hidden = false;
  ui.progress.value = 0;
  ui.progressText.textContent = 'opening the model...';
  const url = new URL(location.href);
  url.searchParams.set('model', entry.id);
  if (wantedBackend() === 'auto') url.searchParams.delete('backend');
  else url.searchParams.set('backend', wantedBackend());
  history.replaceState(null, '', url);
  try {
    const t = await Translator.create({
      model: entry,
      backend: wantedBackend(),
      onProgress: (e) => token === loadToken && onProgress(e),
      onFallback: () => {
        if (translator !== t) return;
        window.translatorInfo = t.info;
        describeCompute(t.info);
      },
    });
    if (token !== loadToken) {
      t.dispose();
      return;
    }
    translator = t;
    window.translatorInfo = t.info;  // for the browser tests and the curious
    describeEngine(t.info);
    ui.loading.hidden = true;
    ui.source.disabled = false;
    setState('ready');
    if (!ui.source.value.trim() || ui.source.dataset.example === 'yes') {
      ui.source.value = EXAMPLES[entry.from] ?? '';
      ui.source.dataset.example = 'yes';
    }
    translateNow();
  } catch (e) {
    if (token !== loadToken) return;
    ui.loading.hidden = true;
    setState('error');
    showError(`The model could not be loaded: ${e.message}`);
  }
}

async function translateNow() {
  clearTimeout(debounce);
  if (!translator) return;
  const text = ui.source.value;
  inFlight?.abort();  // a stale request is cancelled whether queued or running
  const controller = new AbortController();
  inFlight = controller;
  setState('translating');
  try {
    const result = await translator.translate(text, { alignment: true, beam: Number(ui.beam.value), signal: controller.signal });
    if (controller !== inFlight) return;
    ui.output.textContent = result.text;
    ui.output.dataset.source = text;
    const t = result.timings;
    ui.timing.textContent = result.tokens.length
      ? `${t.translateMs.toFixed(1)} ms, ${t.targetTokens} token${t.targetTokens === 1 ? '' : 's'}, ${Math.round(t.tokensPerSecond)} tokens/s` +
        (result.sentences.length > 1 ? `, ${result.sentences.length} sentences` : '') + ` on ${t.backend === 'webgpu' ? 'WebGPU' : 'wasm'}`
      : '';
    ui.output.dataset.backend = t.backend;
    drawHeatmap(ui.heatmap, result.alignment);
    setState('done');
  } catch (e) {
    if (e?.name === 'AbortError' || controller !== inFlight) return;
    setState('error');
    showError(`Translation failed: ${e.message}`);
  }
}

function reverseOf(entry) {
  return registry.models.find((m) => m.from === entry.to && m.to === entry.from && m.test === entry.test);
}

function current() {
  return registry.models.find((m) => m.id === ui.direction.value);
}

async function main() {
  if ('serviceWorker' in navigator && params.get('sw') !== 'off') {
    // Keeps the page's files for offline use (the model itself is kept by tformer-wasm).
    navigator.serviceWorker.register('sw.js', { scope: '../' }).catch((e) => console.warn('service worker:', e.message));
  }
  try {
    registry = await loadRegistry(params.get('registry') ?? 'registry.json');
  } catch (e) {
    setState('error');
    showError(e.message);
    return;
  }
  if (!registry.models.length) {
    setState('error');
    showError('The model registry lists no models. Train or fetch one into models/<name>/model.tfm (see the README).');
    return;
  }
  ui.direction.replaceChildren(...registry.models.map((m) => {
    const text = `${language(m.from)} \u2192 ${language(m.to)}${m.test ? ` \u2014 ${m.label}` : ` (${m.id})`}`;
    return new Option(text, m.id);
  }));
  if (BACKENDS.includes(params.get('backend'))) ui.backend.value = params.get('backend');
  const wanted = registry.models.find((m) => m.id === params.get('model')) ?? registry.models[0];
  ui.direction.value = wanted.id;
  ui.direction.disabled = false;
  ui.direction.addEventListener('change', () => selectModel(current()));
  ui.swap.disabled = false;
  ui.swap.addEventListener('click', () => {
    const back = reverseOf(current());
    if (!back) {
      showError(`No model for ${language(current().to)} \u2192 ${language(current().from)} in the registry.`);
      return;
    }
    ui.source.value = ui.output.textContent;
    ui.source.dataset.example = 'no';
    ui.direction.value = back.id;
    selectModel(back);
  });
  ui.source.addEventListener('input', () => {
    ui.source.dataset.example = 'no';
    clearTimeout(debounce);
    debounce = setTimeout(translateNow, DEBOUNCE_MS);
  });
  ui.beam.addEventListener('change', translateNow);
  ui.backend.addEventListener('change', () => selectModel(current()));
  await selectModel(wanted);
}

main();
