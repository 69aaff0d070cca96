// The demo page: pick a direction from the model registry (our own models) or from a model
// catalogue in Firefox's format (Firefox's by default, ?catalog=URL another, ?catalog=off none), type,
// and read the translation and the attention behind it. Everything runs through the package's
// public API (../src/index.js).
import { Translator, FIREFOX_CATALOG, loadRegistry, withVariant, describeAdapter, chunksOf, paragraphAlignment } from '../src/index.js';
import { drawHeatmap } from './heatmap.js';
import { renderMarkdown } from './markdown.js';
import { setupOwnModel } from './own-model.js';
import { setupGlossaryEditor } from './glossary-editor.js';
import { markUnsure, setupToggle } from './confidence-marks.js';

const $ = (id) => document.getElementById(id);
const ui = {
  direction: $('direction'), swap: $('swap'), weights: $('weights'), beam: $('beam'), backend: $('backend'), compute: $('compute'),
  source: $('source'), output: $('output'), timing: $('timing'), loading: $('loading'), progress: $('progress'),
  progressText: $('progress-text'), error: $('error'), engine: $('engine'), warnings: $('warnings'), heatmap: $('heatmap'),
  testNote: $('test-model-note'), domainNote: $('domain-note'), domainSize: $('domain-size'), domainFigures: $('domain-figures'),
  gpuWarning: $('gpu-warning'), catalogNote: $('catalog-note'), examples: $('examples'), about: $('model-about'), card: $('model-card'),
  sourceLabel: $('source-label'), targetLabel: $('target-label'),
  passthroughNote: $('passthrough-note'), work: $('work'), workProgress: $('work-progress'), workText: $('work-text'), stop: $('stop'),
  copy: $('copy'), copied: $('copied'), clear: $('clear'),
};
// Sentences the shipped models translate well (short, everyday or caption-like: their training
// domain), picked by running candidates through the CLI (`build/tformer translate -m ...`).
const EXAMPLES = {
  de: ['Zwei Kinder spielen im Park.', 'Die Katze schläft auf dem Sofa.', 'Wie geht es dir?', 'Mein Bruder wohnt in Berlin.',
    'Ein Junge springt ins Wasser.'],
  en: ['Two children are playing in the park.', 'A boy jumps into the water.', 'Where is the train station?',
    'My brother lives in Berlin.', 'I am going to the cinema tomorrow.'],
};
const DEBOUNCE_MS = 250;
// Every translation of the text box is a request with this key that supersedes the earlier ones
// (translateStream's `key` and `supersede`): a stale one is dropped at its next chunk of about
// CHUNK_CHARS characters, the engine never restarted for it, and its successor runs right after.
const SOURCE_KEY = 'source';
// Test sets of the models' eval.json, as the page names them (in this order).
const SET_NAMES = { 'multi30k-test2016': 'Multi30k image captions', 'flores-devtest': 'FLORES (Wikipedia)', newstest2019: 'WMT news 2019',
  newstest2020: 'WMT news 2020' };
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const language = (code) => { try { return languageNames.of(code); } catch { return code; } };
// A language known by its code ('und' and '' are not), for the labels and `lang` attributes.
const known = (code) => typeof code === 'string' && code !== '' && code !== 'und';

/** The text boxes' headings and `lang` attributes for a direction (own models: "Source"/"Target"
 * until their languages are known). The output's language is the translation's: as a browser's
 * page translation does with the page, it says what the text is now. */
export function labelPanes(from, to) {
  ui.sourceLabel.textContent = known(from) ? language(from) : 'Source';
  ui.targetLabel.textContent = known(to) ? language(to) : 'Target';
  for (const [element, code] of [[ui.source, from], [ui.output, to]]) {
    if (known(code)) element.lang = code;
    else element.removeAttribute('lang');
  }
  glossary.setPair(from, to);  // each pair has its own terms
}
window.demoLabelPanes = labelPanes;
const params = new URLSearchParams(location.search);
// The glossary editor (glossary-editor.js): its terms go with every translation; editing them
// translates the text again.
const glossary = setupGlossaryEditor($('glossary'), { changed: () => requestTranslation() });
// Numbers, emoji, URLs and unknown characters pass through, and decoding loops are stopped
// (translate()'s passthrough and repetitionGuard, on by default); ?plain shows the model's own
// output, as `tformer translate --no-passthrough --no-repetition-guard` gives it (the browser tests
// compare the two).
const PLAIN = params.has('plain');

let registry = null;
// The catalogue's pairs, by option value ('catalog:fr-de'): {id, from, to, catalog: true, pivot, downloadBytes}.
const catalogEntries = new Map();
const CATALOG = params.get('catalog') === 'off' ? null : params.get('catalog') ?? FIREFOX_CATALOG;
let translator = null;
let loadToken = 0;       // which model load is current (a newer selection supersedes an older one)
let job = null;          // the newest translation: {text, beam, translator, controller, stopped, ended, done}
let debounce = 0;
let softwareGpu = null;  // the page's WebGPU adapter is a software one: its description

function setState(state) {
  document.body.dataset.state = state;
}

// The banner. `lasting`: it stays until another model is chosen (a model that could not be
// loaded while the one in use goes on), where others go with the next translation that succeeds.
function showError(message, { lasting = false } = {}) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
  ui.error.dataset.lasting = String(lasting && !!message);
}

function mib(bytes) {
  return `${(bytes / 1048576).toFixed(bytes < 1048576 ? 2 : 1)} MiB`;
}

/** Rates with sensible precision: 3 significant digits below 100, whole numbers above. */
export function formatRate(x) {
  if (!Number.isFinite(x) || x <= 0) return '0';
  return x >= 100 ? String(Math.round(x)) : x.toPrecision(3).replace(/\.?0+$/, '');
}

function onProgress(event) {
  if (event.phase === 'download') {
    ui.loading.hidden = false;
    ui.progress.max = event.total || 1;
    ui.progress.value = event.total ? event.loaded : 0;
    if (!event.total) ui.progress.removeAttribute('value');
    const what = event.pair ? `the ${event.pair} model${event.pair.includes(',') ? 's' : ''}` : 'the model';
    ui.progressText.textContent = `downloading ${what}: ${mib(event.loaded)}${event.total ? ` of ${mib(event.total)}` : ''}`;
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

// Before WebGPU is asked for: is this browser's adapter a software one (SwiftShader and the like
// run WGSL on the CPU, far slower than wasm)? The same rule as the package's 'auto' (describeAdapter).
async function checkGpu() {
  softwareGpu = null;
  if (wantedBackend() === 'webgpu') {
    try {
      const adapter = await navigator.gpu?.requestAdapter({ powerPreference: 'high-performance' });
      const summary = adapter ? describeAdapter(adapter) : null;
      if (summary?.software) softwareGpu = [summary.vendor, summary.architecture, summary.device, summary.description].filter(Boolean).join(' ') || 'a fallback adapter';
    } catch { /* the engine reports what it finds */ }
  }
  showGpuWarning();
}

function showGpuWarning() {
  const on = softwareGpu && wantedBackend() === 'webgpu' && (!translator || translator.info.backend === 'webgpu');
  ui.gpuWarning.hidden = !on;
  if (on) {
    ui.gpuWarning.textContent = `WebGPU here is a software adapter (${softwareGpu}): it computes on the CPU and runs about 100 times ` +
      'slower than wasm. Choose "auto" or "wasm (CPU)" for normal speed.';
  }
}

// Which backend computes, and why (info.backend, backendReason, adapter); updated after a fallback.
function describeCompute(info) {
  const label = info.backend === 'webgpu' ? 'WebGPU' : 'wasm (CPU)';
  ui.compute.textContent = `compute: ${label}` + (info.requestedBackend !== info.backend ? ` (asked: ${info.requestedBackend})` : '') +
    ` — ${info.backendReason}` + (info.adapter ? ` | adapter: ${info.adapter}` : '');
  ui.compute.dataset.backend = info.backend;
  ui.warnings.textContent = info.warnings.join(' ');
  ui.warnings.hidden = info.warnings.length === 0;
  showGpuWarning();
}

// The wasm build and its CPU kernels, apart from the compute path above (on WebGPU the decoder
// layers and the search still run in wasm on these kernels).
function describeEngine(info, entry) {
  const build = { relaxed: 'relaxed-SIMD build (relaxed SIMD + threads)', threaded: 'threaded build (SIMD + threads)' }[info.variant] ??
    'single-threaded build (SIMD)';
  const source = entry.own ? 'imported from your files' : info.load.fromCache ? 'from cache' : 'downloaded';
  // A catalogue pair's size is its files' download, as the list and the progress bar count it (the
  // engine's bytes of its first model, converted, are another number).
  const size = info.model.catalog ? mib(info.model.catalog.downloadBytes) : mib(info.load.bytes);
  ui.engine.textContent = `engine: wasm ${build}, ${info.threads} thread${info.threads > 1 ? 's' : ''}, CPU kernels: ${info.kernels === 'xnnpack' ? 'XNNPACK' : info.kernels}` +
    ` | model ${entry.id}${entry.weights ? ` (${entry.weights})` : ''} ${size} ${source}, ready in ${Math.round(info.load.totalMs)} ms` +
    (info.crossOriginIsolated ? '' : ' | page not cross-origin isolated');
  ui.engine.dataset.variant = info.variant;
  ui.engine.dataset.threads = String(info.threads);
  describeCompute(info);
}

function clearOutput() {
  ui.output.textContent = '';
  ui.copy.disabled = true;
  delete ui.output.dataset.source;
  ui.timing.textContent = '';
  ui.work.hidden = true;
  drawHeatmap(ui.heatmap, null);
}

// The note beside the selector: what the model is good at, with its measured BLEU when the
// registry has it (models/<name>/eval.json, greedy).
function describeDomain(entry, info) {
  ui.domainNote.hidden = entry.test || entry.catalog;
  ui.passthroughNote.hidden = PLAIN;
  ui.testNote.hidden = !entry.test;
  const parameters = info?.model.parameters;
  ui.domainSize.textContent = !parameters ? '' : parameters >= 1e6 ? ` (${(parameters / 1e6).toFixed(0)} M parameters)`
    : ` (${Math.max(1, Math.round(parameters / 1e3))} k parameters)`;
  const variant = (entry.variants ?? []).find((v) => v.weights === entry.weights) ?? {};
  const figures = Object.entries(SET_NAMES).filter(([set]) => Number.isFinite(variant.bleu?.[set]))
    .map(([set, name]) => `${variant.bleu[set].toFixed(1)} on ${name}`);
  ui.domainFigures.textContent = figures.length ? ` (BLEU ${figures.join(', ')})` : '';
}

function showExamples(entry) {
  const list = entry.test ? [] : EXAMPLES[entry.from] ?? [];
  ui.examples.hidden = !list.length;
  ui.examples.replaceChildren(Object.assign(document.createElement('span'), { className: 'label', textContent: 'Try:' }),
    ...list.map((text) => {
      const b = Object.assign(document.createElement('button'), { type: 'button', className: 'example', textContent: text });
      b.addEventListener('click', () => {
        ui.source.value = text;
        ui.source.dataset.example = 'no';
        requestTranslation();
      });
      return b;
    }));
}

// "About this model": the model's card, rendered on first opening.
const cards = new Map();
async function showCard(entry) {
  if (!entry.readme || !ui.about.open || ui.card.dataset.url === entry.readme) return;
  ui.card.dataset.url = entry.readme;
  ui.card.replaceChildren(Object.assign(document.createElement('p'), { className: 'meta', textContent: 'loading the model card...' }));
  try {
    if (!cards.has(entry.readme)) {
      const response = await fetch(entry.readme);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      cards.set(entry.readme, await response.text());
    }
    if (ui.card.dataset.url === entry.readme) ui.card.replaceChildren(renderMarkdown(cards.get(entry.readme), entry.readme));
  } catch (e) {
    delete ui.card.dataset.url;
    ui.card.replaceChildren(Object.assign(document.createElement('p'), { className: 'error', textContent: `The model card could not be loaded: ${e.message}` }));
  }
}

function variantOf(entry) {
  const weights = ui.weights.value;
  return (entry.variants ?? []).some((v) => v.weights === weights) ? withVariant(entry, weights) : withVariant(entry);
}

function listVariants(entry, wanted) {
  const variants = entry.variants ?? [];
  ui.weights.replaceChildren(...variants.map((v) => new Option(`${v.weights}, ${mib(v.size)}${v.default ? ' (default)' : ''}`, v.weights)));
  ui.weights.value = variants.some((v) => v.weights === wanted) ? wanted : variants.find((v) => v.default)?.weights ?? '';
  ui.weights.disabled = variants.length < 2;
  ui.weights.title = entry.defaultReason ? `default: ${entry.defaultReason}` : ui.weights.title;
}

/**
 * Loads a model and translates the text with it. `keep`: the model in use stays until this one has
 * loaded, and stays in use when it fails ("Use your own model": a folder that cannot be imported
 * takes nothing away). Resolves to whether the model was loaded.
 */
async function selectModel(base, { keep = false } = {}) {
  const token = ++loadToken;
  dropJob();
  const previous = keep && translator ? { translator, entry: window.demoEntry, direction: ui.direction.value } : null;
  if (!previous) translator?.dispose();
  translator = null;
  // What was translated belongs to the model before: it goes before the panes take the new labels.
  clearOutput();
  const entry = base.own || base.catalog ? base : variantOf(base);  // own: a folder of own-model.js; catalog: a catalogue pair
  setState('loading');
  showError('');
  ui.source.disabled = true;
  ui.clear.disabled = true;
  ui.swap.disabled = true;
  describeDomain(entry, null);
  showExamples(entry);
  ui.about.hidden = !entry.readme;
  showCard(entry);
  labelPanes(entry.from, entry.to);
  ui.loading.hidden = false;
  ui.progress.value = 0;
  // A catalogue pair says what it will download before it does (nothing when it is cached).
  ui.progressText.textContent = entry.catalog ? `opening ${language(entry.from)} \u2192 ${language(entry.to)} from the catalogue` +
    `${entry.pivot ? ' (two models, through English)' : ''}: up to ${mib(entry.downloadBytes)} to download unless cached`
    : 'opening the model...';
  const url = new URL(location.href);
  url.searchParams.set('model', entry.id);
  if (entry.variants?.length > 1 && !entry.variants.find((v) => v.weights === entry.weights)?.default) url.searchParams.set('weights', entry.weights);
  else url.searchParams.delete('weights');
  if (wantedBackend() === 'auto') url.searchParams.delete('backend');
  else url.searchParams.set('backend', wantedBackend());
  if (!entry.own) history.replaceState(null, '', url);
  try {
    const t = await Translator.create({
      ...(entry.catalog ? { from: entry.from, to: entry.to, catalog: CATALOG }
        : { model: entry.folder ?? entry }),  // a registry entry, or a folder of own-model.js
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
      return false;
    }
    // Warm-up: the first translation of a fresh engine pays for starting its thread pool and
    // for first-use work in the kernels (hundreds of ms, against tens once warm); done here it
    // is part of the start, not of the user's first sentence.
    ui.progressText.textContent = 'warming up the engine';
    const warmStart = performance.now();
    try {
      await t.translate(EXAMPLES[entry.from]?.at(-1) ?? 'Hello.');
    } catch { /* a real failure shows with the first translation */ }
    window.demoWarmupMs = performance.now() - warmStart;
    if (token !== loadToken) {
      t.dispose();
      return false;
    }
    previous?.translator.dispose();
    translator = t;
    window.translatorInfo = t.info;  // for the browser tests and the curious
    window.demoTranslator = t;
    window.demoEntry = entry;
    describeEngine(t.info, entry);
    describeDomain(entry, t.info);
    ui.loading.hidden = true;
    ui.source.disabled = false;
    ui.clear.disabled = false;
    // Swap needs the other direction (a catalogue may translate one way only).
    ui.swap.disabled = !reverseOf(entry);
    setState('ready');
    if (!ui.source.value.trim() || ui.source.dataset.example === 'yes') {
      ui.source.value = EXAMPLES[entry.from]?.[0] ?? '';
      ui.source.dataset.example = 'yes';
    }
    requestTranslation();
    return true;
  } catch (e) {
    if (token !== loadToken) return false;
    ui.loading.hidden = true;
    if (previous) {
      keepPrevious(previous, entry, e);
      return false;
    }
    setState('error');
    // Show the state the page is in: no model, so no translation and no engine.
    clearOutput();
    ui.engine.textContent = `model ${entry.id}: not loaded`;
    ui.compute.textContent = 'compute: none (no model loaded)';
    ui.warnings.hidden = true;
    const offline = e?.offline === true;
    showError(offline ? `offline: this model (${entry.id}, ${entry.weights ?? 'model'} ${mib(entry.size)}) is not in the cache yet. ` +
      'Connect once to download it; the models opened before work offline.' : `The model could not be loaded: ${e.message}`);
    return false;
  }
}

// A model that could not be loaded while another was in use: the one in use goes on, and the page
// says so.
function keepPrevious(previous, failed, error) {
  translator = previous.translator;
  window.demoTranslator = translator;
  window.demoEntry = previous.entry;
  window.translatorInfo = translator.info;
  labelPanes(previous.entry.from, previous.entry.to);
  describeDomain(previous.entry, translator.info);
  ui.direction.value = previous.direction;
  ui.source.disabled = false;
  ui.clear.disabled = false;
  ui.swap.disabled = !reverseOf(previous.entry);
  setState('ready');
  showError(`The model ${failed.id} could not be loaded: ${error.message}. The page still translates with ${previous.entry.id}.`,
    { lasting: true });
  requestTranslation();
}

// ---- translations: the newest text's request supersedes the older ones ----

// The search, chosen by measurement (docs/BENCHMARKS.md, "Search settings"): beam 4 gives the
// shipped models about 1 BLEU more than greedy search at about twice the time, which a text of up
// to a short paragraph does not make noticeable (tens of milliseconds), and a longer one does; so
// 'auto' searches with beam 4 up to AUTO_BEAM_CHARS characters and greedily beyond. ?plain keeps
// the CLI's default (greedy), as its comparison with the CLI needs.
const AUTO_BEAM_CHARS = 600;
function beamFor(text) {
  if (ui.beam.value !== 'auto') return Number(ui.beam.value);
  return !PLAIN && text.length <= AUTO_BEAM_CHARS ? 4 : 1;
}
window.demoBeamFor = beamFor;

/** Translates the source text; an older translation still running or queued is superseded. */
function requestTranslation() {
  clearTimeout(debounce);
  if (!translator) return;
  const text = ui.source.value;
  if (job && !job.ended && job.text === text && job.beam === beamFor(text) && job.translator === translator &&
      job.glossary === glossary.key()) return;  // already on it
  startJob(text);
}

// A model change: the old translator goes, with whatever ran on it.
function dropJob() {
  if (job && !job.ended) job.controller.abort();
  job = null;
  ui.work.hidden = true;
}

/** Resolves when the newest translation has ended (a newer one started meanwhile is waited for too). */
async function whenIdle() {
  while (job && !job.ended) await job.done;
}

function startJob(text) {
  const j = { text, beam: beamFor(text), glossary: glossary.key(), translator, controller: new AbortController(), stopped: false, ended: false,
    done: null };
  job = j;
  setState('translating');
  j.done = runJob(j).finally(() => {
    j.ended = true;
    if (job === j && !j.stopped) ui.work.hidden = true;  // a stopped job keeps saying how far it got
  });
}

function showWork(done, total, j) {
  ui.work.hidden = false;
  ui.workProgress.max = total;
  ui.workProgress.value = done;
  ui.workText.textContent = j.stopped ? `stopped: ${done} of ${total} sentences translated` : `translated ${done} of ${total} sentences`;
  ui.work.dataset.done = String(done);
  ui.work.dataset.total = String(total);
  ui.stop.hidden = j.stopped;
}

// The text through translateStream(): the output grows sentence by sentence; a long text (more
// than one chunk) shows its progress and can be stopped.
async function runJob(j) {
  const entry = window.demoEntry;
  const chunks = chunksOf(j.text, entry?.from);
  const total = chunks.reduce((n, c) => n + c.sentences, 0);
  const sentences = [];
  let text = '';
  const current = () => job === j && j.translator === translator;
  j.showWork = chunks.length > 1 ? () => showWork(Math.min(sentences.length, total), total, j) : null;
  if (j.showWork) {
    // The timing and the heat map shown belong to an earlier text; results now come in sentence by sentence.
    ui.timing.textContent = '';
    drawHeatmap(ui.heatmap, null);
    j.showWork();
  }
  // A single chunk that runs long (one very long sentence) gets the Stop button too.
  const slow = setTimeout(() => {
    if (j.showWork || !current() || j.ended) return;
    ui.work.hidden = false;
    ui.stop.hidden = false;
    ui.workProgress.removeAttribute('value');
    ui.workText.textContent = 'translating...';
  }, 1000);
  const started = performance.now();
  window.demoTranslations = (window.demoTranslations ?? 0) + 1;
  try {
    const stream = j.translator.translateStream(j.text, { key: SOURCE_KEY, supersede: true, alignment: true, beam: j.beam,
      signal: j.controller.signal, passthrough: !PLAIN, repetitionGuard: !PLAIN, glossary: JSON.parse(j.glossary), confidence: true });
    for await (const s of stream) {
      sentences.push(s);
      text += s.separator + s.text;
      if (!current()) continue;
      ui.output.textContent = text;
      markUnsure(ui.output, sentences);
      ui.copy.disabled = false;
      j.showWork?.();
    }
  } catch (e) {
    // Superseded by a newer text, stopped by the user, or its translator replaced: nothing to say.
    if (e?.name === 'SupersededError' || e?.name === 'AbortError' || !current()) return;
    // The banner stands alone: a translation of an earlier text under it would read as this one's.
    clearOutput();
    setState('error');
    ui.output.dataset.failed = 'yes';
    showError(`Translation failed: ${e.message}`);
    return;
  } finally {
    clearTimeout(slow);
  }
  if (!current() || j.stopped) return;
  // Done: a success clears an earlier failure.
  const ms = performance.now() - started;
  const tokens = sentences.reduce((n, s) => n + s.tokens.length, 0);
  const backend = j.translator.info.backend;
  if (ui.error.dataset.lasting !== 'true') showError('');
  delete ui.output.dataset.failed;
  ui.output.textContent = text;
  markUnsure(ui.output, sentences);
  ui.copy.disabled = text === '';
  ui.output.dataset.source = j.text;
  ui.output.dataset.backend = backend;
  ui.timing.textContent = tokens
    ? `${ms.toFixed(1)} ms, ${tokens} token${tokens === 1 ? '' : 's'}, ${formatRate(tokens / (ms / 1000))} tokens/s` +
      (sentences.length > 1 ? `, ${sentences.length} sentences` : '') + ` on ${backend === 'webgpu' ? 'WebGPU' : 'wasm'}` +
      (backend === 'webgpu' && softwareGpu ? ' (software adapter: slow)' : '')
    : '';
  // paragraphAlignment's ranges are of the sentences' sources and texts joined by their separators.
  drawHeatmap(ui.heatmap, sentences.length ? paragraphAlignment(sentences) : null,
    sentences.map((s) => ({ rows: s.targetPieces.length, cols: s.sourcePieces.length })),
    { source: sentences.map((s) => s.separator + s.source).join(''), target: text });
  setState('done');
}

// Copy: the translation to the clipboard (the Clipboard API; where a page may not use it, the
// output's text selected and copied the old way).
async function copyOutput() {
  const text = ui.output.textContent;
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    const range = document.createRange();
    range.selectNodeContents(ui.output);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    copied = document.execCommand('copy');
  }
  ui.copied.textContent = copied ? 'copied' : 'select the text to copy it';
  setTimeout(() => { ui.copied.textContent = ''; }, 2000);
}

// Clear: no text, no translation (a translation still running is dropped).
function clearSource() {
  clearTimeout(debounce);
  if (job && !job.ended) job.controller.abort();
  ui.source.value = '';
  ui.source.dataset.example = 'no';
  clearOutput();
  showError('');
  if (translator) setState('ready');
  ui.source.focus();
}

function stopWork() {
  const j = job;
  if (!j || j.ended || j.stopped) return;
  // Asked for by the user for work that runs long: the running request is aborted now.
  j.stopped = true;
  j.controller.abort();
  ui.output.dataset.source = '';
  j.showWork?.();
  ui.stop.hidden = true;
  setState('done');
}

// Swap: the translation of the text typed becomes the source of the other direction, never the
// translation of an earlier text. A translation still running is waited for.
async function swap() {
  const back = reverseOf(current());
  if (!back) {
    showError(`No model here translates ${language(current().to)} \u2192 ${language(current().from)}.`);
    return;
  }
  // Swap keeps the focus it had (a key press on it): disabling it while the model loads would drop
  // the focus to the page.
  const focused = document.activeElement === ui.swap;
  ui.swap.disabled = true;
  requestTranslation();
  if (job && !job.ended) {
    ui.timing.textContent = 'finishing the translation before swapping...';
    await whenIdle();
  }
  const translated = ui.output.dataset.source === ui.source.value && ui.output.dataset.failed !== 'yes';
  const dropped = !translated && ui.source.value.trim() !== '';
  // Never feed the text to the other direction's model unannounced: without its translation it
  // is cleared, and the page says so.
  ui.source.value = translated ? ui.output.textContent : '';
  ui.source.dataset.example = 'no';
  ui.direction.value = back.id;
  listVariants(back);
  await selectModel(back);
  if (focused) (ui.swap.disabled ? ui.direction : ui.swap).focus();
  if (dropped) showError('The text could not be translated, so it was not carried over to the other direction.');
}

function reverseOf(entry) {
  if (entry.catalog) return catalogEntries.get(`catalog:${entry.to}-${entry.from}`);
  return registry.models.find((m) => m.from === entry.to && m.to === entry.from && m.test === entry.test);
}

function current() {
  return registry.models.find((m) => m.id === ui.direction.value) ?? catalogEntries.get(ui.direction.value);
}

// The catalogue's pairs as options: size before anything is downloaded. Without the catalogue (offline,
// ?catalog=off) the page offers our own models only.
async function catalogOptions() {
  if (!CATALOG) return [];
  let pairs;
  try {
    pairs = await Translator.pairs({ catalog: CATALOG });
  } catch (e) {
    // The page says which pairs are missing from the list and why (offline, a server down).
    ui.catalogNote.hidden = false;
    ui.catalogNote.textContent = `${CATALOG === FIREFOX_CATALOG ? "The pairs of Firefox Translations' model catalogue" :
      `The pairs of the model catalogue at ${CATALOG}`} are missing from the list: it could not be read (${e.message}). ` +
      'Our own models work as before; reload the page to try the catalogue again.';
    return [];
  }
  const group = document.createElement('optgroup');
  group.label = CATALOG === FIREFOX_CATALOG ? "Firefox Translations' models (MPL-2.0, downloaded when chosen)"
    : `the catalogue at ${CATALOG} (downloaded when chosen)`;
  for (const p of pairs) {
    const entry = { id: `catalog:${p.from}-${p.to}`, from: p.from, to: p.to, catalog: true, pivot: p.pivot, downloadBytes: p.downloadBytes };
    catalogEntries.set(entry.id, entry);
    group.append(new Option(`${language(p.from)} \u2192 ${language(p.to)} (${p.pivot ? 'through English, ' : ''}${mib(p.downloadBytes)})`, entry.id));
  }
  return pairs.length ? [group] : [];
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
  const own = document.createElement('optgroup');
  own.label = 'our own models (tformer-wasm)';
  own.append(...registry.models.map((m) => {
    const text = `${language(m.from)} \u2192 ${language(m.to)}${m.test ? ` \u2014 ${m.label}` : ` (${m.id})`}`;
    return new Option(text, m.id);
  }));
  ui.direction.replaceChildren(own);
  // The catalogue's pairs join the list when its records arrive; the page does not wait for them.
  const catalogReady = catalogOptions().then((groups) => {
    const chosen = ui.direction.value;
    ui.direction.append(...groups);
    ui.direction.value = chosen;
    document.body.dataset.catalog = groups.length ? 'ready' : 'none';
  });
  if (BACKENDS.includes(params.get('backend'))) ui.backend.value = params.get('backend');
  if (params.get('model')?.startsWith('catalog:')) {
    await catalogReady;
    const pair = catalogEntries.get(params.get('model'));
    if (pair) {
      ui.direction.value = pair.id;
      ui.direction.disabled = false;
      wireControls();
      await checkGpu();
      await selectModel(pair);
      return;
    }
  }
  const wanted = registry.models.find((m) => m.id === params.get('model')) ?? registry.models[0];
  ui.direction.value = wanted.id;
  ui.direction.disabled = false;
  listVariants(wanted, params.get('weights'));
  wireControls();
  await checkGpu();
  await selectModel(wanted);
}

let wired = false;
function wireControls() {
  if (wired) return;
  wired = true;
  ui.direction.addEventListener('change', () => {
    // Leaving an own model (own-model.js): its entry in the list goes with it.
    ui.direction.querySelector('option[value="own"]')?.remove();
    listVariants(current());
    selectModel(current());
  });
  ui.weights.addEventListener('change', () => selectModel(current()));
  ui.swap.addEventListener('click', swap);
  ui.stop.addEventListener('click', stopWork);
  ui.copy.addEventListener('click', copyOutput);
  ui.clear.addEventListener('click', clearSource);
  setupToggle($('confidence'), $('confidence-legend'));
  setupOwnModel($('own-model'), { load: (entry) => selectModel(entry, { keep: true }), info: () => translator?.info ?? null, labelPanes });
  ui.about.addEventListener('toggle', () => current().catalog || showCard(variantOf(current())));
  ui.source.addEventListener('input', () => {
    ui.source.dataset.example = 'no';
    clearTimeout(debounce);
    debounce = setTimeout(requestTranslation, DEBOUNCE_MS);
  });
  ui.beam.addEventListener('change', requestTranslation);
  ui.backend.addEventListener('change', async () => {
    await checkGpu();
    selectModel(window.demoEntry?.own ? window.demoEntry : current());
  });
}

main();
