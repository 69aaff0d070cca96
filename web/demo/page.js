// "Translate this page": the article of page.html translated in place, block by block, by the
// package's page helper (translatePage, src/page.js): blocks in view first and the others as they
// scroll into view, many blocks per request. The engine runs in the package's Worker: the page
// never blocks. The view selector shows the translation alone (the original's text on hover), or
// each block's original with its translation under or beside it; "Show original" puts back each
// block's own nodes, so the page is again byte for byte what it was.
//
// The languages come from the web's standard APIs (page-languages.js): the page's language and a
// block's where it differs are detected with LanguageDetector, and the languages offered are the
// catalogue's targets that Translator.availability() can serve. Each API is the browser's own only
// where its availability() answers "available", else tformer-wasm/polyfill's, and a line of the
// toolbar says which. A block detected in another language than the page's is left as it is.
//
// The translator, by default, is the package's own, created from the same catalogue: markup
// (links, emphasis) carried onto the translated words by the engine's alignment, and a translation
// memory in IndexedDB, so a page translated before (menus, footers, the same article after a
// reload) comes back from it instead of the model. With ?api=standard it is the standard
// Translator (Translator.create({sourceLanguage, targetLanguage}), as chosen above), which takes plain text: each
// block's text runs are translated and no element moves, the way a page written for Chrome's API
// translates. The article is German or English (?article=en, or the selector), and, as a
// browser's page translation does, the page's <html lang> says the language it is in.
import { Translator as PackageTranslator, translatePage, PAGE_BLOCKS } from '../src/index.js';
import { catalogueArcs, catalogueSource } from '../src/standard/catalogue.js';
import { installStandardApis, detectLanguageOf, blockLanguages, catalogueTargets, targetLanguages, languageName, describeApis, apisInUse,
  standardTranslator } from './page-languages.js';
import { markUnsure, clearMarks, setupToggle } from './confidence-marks.js';

const $ = (id) => document.getElementById(id);
const ui = { translate: $('translate'), original: $('original'), status: $('status'), article: $('article'), language: $('article-language'),
  view: $('view'), target: $('target-language'), detected: $('detected'), confidence: $('confidence'), apis: $('apis') };
const params = new URLSearchParams(location.search);
const articles = { de: ui.article.innerHTML, en: $('article-en').innerHTML };
// The catalogue (?catalog=URL: Firefox's format or a registry), and the browser's own APIs left
// unused with ?polyfill=force (where they would serve, they are used otherwise).
const catalog = params.get('catalog') ?? 'registry.json';
const standardApi = params.get('api') === 'standard';
installStandardApis({ catalog, force: params.get('polyfill') === 'force' });

// What the tests read: the state, the languages detected and offered, the requests made (how many
// blocks each took), the sentences translated and how many of them the translation memory
// answered, and how long the page took from its first request to its last block (pageMs).
const state = { mode: 'original', view: ui.view.value, api: standardApi ? 'standard' : 'package', blocks: 0, translated: 0, waiting: 0,
  requests: [], sentences: 0, memoryHits: 0, pageMs: null, memorySaved: false, error: null, warnings: [],
  page: null, blockLanguages: [], targets: [], languagesRead: 0, apis: null };
window.pageDemo = state;

const translators = new Map();  // 'de->en' -> Promise of a translator
let foreign = new Map();  // block -> {language, confidence}: the blocks in another language than the page's
let round = null;         // the page translation (translatePage) shown, or null

function status(text) {
  ui.status.textContent = text;
}

function articleLanguage() {
  return ui.article.dataset.language;
}

// Shows the article in `language` (the original: a translation in progress is dropped).
function showArticle(language) {
  showOriginal();
  ui.article.innerHTML = articles[language];
  ui.article.dataset.language = language;
  document.documentElement.lang = language;
  ui.language.value = language;
  readLanguages();
}

// The blocks translatePage takes (the innermost blocks with text, as it chooses them), for the detection.
function blocksOf(root) {
  return [...root.querySelectorAll(PAGE_BLOCKS)]
    .filter((el) => !el.querySelector(PAGE_BLOCKS) && !el.closest('[translate="no"], pre, code') && el.textContent.trim() !== '');
}

// The page's language, the blocks in another one, and the languages to translate into.
let targetsOfCatalogue = null;
async function readLanguages() {
  const article = ui.article.innerHTML;
  ui.translate.disabled = true;
  try {
    const page = await detectLanguageOf(ui.article.textContent);
    const other = await blockLanguages(blocksOf(ui.article), page.language);
    targetsOfCatalogue ??= catalogueTargets(catalog);
    const targets = await targetLanguages(page.language, await targetsOfCatalogue);
    if (ui.article.innerHTML !== article) return;  // another article meanwhile
    foreign = other;
    Object.assign(state, { page, targets, blockLanguages: [...other].map(([b, l]) => ({ text: b.textContent.trim(), ...l })) });
    ui.detected.textContent = `${languageName(page.language)} (${Math.round(page.confidence * 100)}%)` +
      (other.size ? `, ${other.size} block${other.size > 1 ? 's' : ''} in ${[...new Set([...other.values()].map((l) => languageName(l.language)))].join(', ')}` : '');
    const chosen = ui.target.value;
    ui.target.replaceChildren(...targets.map(({ language, availability }) => new Option(targetLabel(language, availability), language)));
    if (targets.some((t) => t.language === chosen)) ui.target.value = chosen;
    ui.translate.disabled = targets.length === 0;
    if (!targets.length) status(`The catalogue translates nothing from ${languageName(page.language)}.`);
  } catch (e) {
    state.error = e.message;
    status(`The languages could not be read: ${e.message}`);
  } finally {
    ui.apis.textContent = describeApis({ packageTranslator: !standardApi });
    state.apis = apisInUse();
    state.languagesRead++;
  }
}

// A target's option: its name, and how it can be had unless it is here ("English (downloadable)").
function targetLabel(language, availability) {
  return `${languageName(language)}${availability === 'available' ? '' : ` (${availability})`}`;
}

// A target whose model has loaded is available from now on: its option says so.
function targetLoaded(language) {
  const target = state.targets.find((t) => t.language === language);
  if (target) target.availability = 'available';
  const option = [...ui.target.options].find((o) => o.value === language);
  if (option) option.text = targetLabel(language, 'available');
}

// The translator from `from` to `to`, created once, its download shown as it goes: the standard
// API's (?api=standard), or the package's for the catalogue's arc, with a translation memory.
function ensureTranslator(from, to) {
  const key = `${from}->${to}`;
  if (!translators.has(key)) {
    const progress = (loaded) => status(`loading ${languageName(from)} \u2192 ${languageName(to)}: ${Math.round(loaded * 100)}%`);
    const created = standardApi
      ? standardTranslator(to).create({ sourceLanguage: from, targetLanguage: to,
        monitor: (m) => m.addEventListener('downloadprogress', (e) => progress(e.loaded)) })
      : (async () => {
        const arc = (await catalogueArcs(catalogueSource(new URL(catalog, location.href).href)))
          .find((a) => a.sourceLanguage === from && a.targetLanguage === to);
        if (!arc) throw new Error(`the catalogue has no ${from} \u2192 ${to} model`);
        return PackageTranslator.create({ ...arc.options, memory: { persist: true },
          onProgress: (e) => { if (e.phase === 'download' && e.total) progress(e.loaded / e.total); } });
      })();
    translators.set(key, created);
    created.then(() => targetLoaded(to), () => translators.delete(key));
  }
  return translators.get(key);
}

async function translateArticle() {
  const from = state.page?.language ?? articleLanguage(), to = ui.target.value;
  ui.translate.disabled = true;
  ui.language.disabled = true;
  let t;
  try {
    t = await ensureTranslator(from, to);
  } catch (e) {
    state.error = e.message;
    status(`The model could not be loaded: ${e.message}`);
    return;
  } finally {
    ui.translate.disabled = false;
    ui.language.disabled = false;
  }
  state.warnings = t.info?.warnings ?? [];
  // The page is in the translation's language from now on (as the blocks change); in the bilingual
  // views it is the original's, each copy of a translation marked with its own language.
  state.languages = { from, to };
  document.documentElement.lang = ui.view.value === 'translation' ? to : from;
  ui.translate.hidden = true;
  ui.original.hidden = false;
  // Word confidence while the toolbar's toggle is on (a request that asks for it is computed, not
  // answered by the translation memory: the memory keeps no log-probabilities).
  const confidence = !standardApi && ui.confidence.getAttribute('aria-pressed') === 'true';
  const started = performance.now();
  const current = translatePage(ui.article, {
    translator: t,
    view: ui.view.value,
    skip: (block) => foreign.has(block),
    translateOptions: standardApi ? {} : { repetitionGuard: true, confidence },
    onBlock: ({ element, result }) => { if (confidence) markUnsure(element, result.sentences); },
    onProgress: (p) => {
      if (round !== current) return;
      Object.assign(state, { translated: p.translated, waiting: p.waiting, requests: p.requests, sentences: p.sentences,
        memoryHits: p.memoryHits, error: p.error?.message ?? null });
      if (p.error) status(`Translation failed: ${p.error.message}`);
      else if (p.translated < p.blocks) status(`translated ${p.translated} of ${p.blocks} blocks (the rest as you scroll)`);
    },
  });
  round = current;
  Object.assign(state, { mode: 'translating', blocks: current.progress.blocks, translated: 0, waiting: 0, requests: [], sentences: 0,
    memoryHits: 0, pageMs: null, memorySaved: false, error: null });
  status(`translating ${state.blocks} blocks...`);
  const done = await current.done;
  if (round !== current || done.error) return;
  state.pageMs = performance.now() - started;
  state.mode = 'translated';
  status(`translated ${done.blocks} blocks in ${done.requests.length} requests` +
    (done.memoryHits ? `; ${done.memoryHits} of ${done.sentences} sentences from the translation memory` : ''));
  // Stored now rather than shortly after: a reload finds the page in the memory.
  await t.memory?.save().catch(() => {});
  if (round === current) state.memorySaved = true;
}

function showOriginal() {
  round?.restore();
  round = null;
  clearMarks();
  document.documentElement.lang = articleLanguage();
  Object.assign(state, { mode: 'original', translated: 0, waiting: 0 });
  ui.original.hidden = true;
  ui.translate.hidden = false;
  status('');
}

ui.translate.addEventListener('click', translateArticle);
ui.language.addEventListener('change', () => showArticle(ui.language.value));
ui.view.addEventListener('change', () => {
  state.view = ui.view.value;
  round?.setView(ui.view.value);
  if (round && state.languages) document.documentElement.lang = ui.view.value === 'translation' ? state.languages.to : state.languages.from;
});
ui.original.addEventListener('click', showOriginal);
if (params.get('article') === 'en') showArticle('en');
else readLanguages();
setupToggle(ui.confidence, $('confidence-legend'));
