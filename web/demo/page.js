// "Translate this page": the article of page.html translated in place, block by block, by the
// package's page helper (translatePage, src/page.js, on top of translate(texts, { html: true })):
// markup (links, emphasis) carried onto the translated words, blocks in view first and the others
// as they scroll into view, many blocks per request. The engine runs in the package's Worker: the
// page never blocks. The view selector shows the translation alone (the original's text on
// hover), or each block's original with its translation under or beside it; "Show original"
// puts back each block's own nodes, so the page is again byte for byte what it was. The article
// is German or English (?article=en, or the selector): the model is the one from its language
// into the other, and, as a browser's page translation does, the page's <html lang> says the
// language it is in: the translation's, then the original's again. The translator keeps a
// translation memory in IndexedDB: a page translated before (menus, footers, the same article
// after a reload) comes back from it instead of the model.
import { Translator, loadRegistry, translatePage } from '../src/index.js';

const $ = (id) => document.getElementById(id);
const ui = { translate: $('translate'), original: $('original'), status: $('status'), article: $('article'), language: $('article-language'),
  view: $('view') };
const params = new URLSearchParams(location.search);
// Each article's language and the language it is translated into.
const OTHER = { de: 'en', en: 'de' };
const articles = { de: ui.article.innerHTML, en: $('article-en').innerHTML };

// What the tests read: the state, the requests made (how many blocks each took), the sentences
// translated and how many of them the translation memory answered, and how long the page took
// from its first request to its last block (pageMs).
const state = { mode: 'original', view: ui.view.value, blocks: 0, translated: 0, waiting: 0, requests: [], sentences: 0, memoryHits: 0,
  pageMs: null, memorySaved: false, error: null, warnings: [] };
window.pageDemo = state;

let translator = null;   // for the article's language: {language, translator}
let round = null;        // the page translation (translatePage) shown, or null
let loading = null;

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
}

async function ensureTranslator() {
  const from = articleLanguage(), to = OTHER[from];
  if (translator?.language === from) return translator.translator;
  translator?.translator.dispose();
  translator = null;
  loading ??= (async () => {
    const registry = await loadRegistry(params.get('registry') ?? 'registry.json');
    const models = registry.models;
    const entry = models.find((m) => m.id === params.get('model') && m.from === from) ??
      models.find((m) => m.from === from && m.to === to && !m.test) ?? models.find((m) => m.from === from && m.to === to);
    if (!entry) throw new Error(`the model registry has no ${from} \u2192 ${to} model`);
    status(`loading ${entry.id}...`);
    const t = await Translator.create({
      model: entry.url,
      sha256: entry.sha256,
      memory: { persist: true },
      onProgress: (e) => {
        if (e.phase === 'download' && e.total) status(`loading ${entry.id}: ${Math.round((100 * e.loaded) / e.total)}%`);
      },
    });
    return { language: from, translator: t };
  })();
  try {
    translator = await loading;
    return translator.translator;
  } finally {
    loading = null;
  }
}

async function translateArticle() {
  ui.translate.disabled = true;
  ui.language.disabled = true;
  let t;
  try {
    t = await ensureTranslator();
  } catch (e) {
    state.error = e.message;
    status(`The model could not be loaded: ${e.message}`);
    ui.translate.disabled = false;
    ui.language.disabled = false;
    return;
  }
  ui.translate.disabled = false;
  ui.language.disabled = false;
  state.warnings = t.info.warnings;
  // The page is in the translation's language from now on (as the blocks change).
  document.documentElement.lang = OTHER[articleLanguage()];
  ui.translate.hidden = true;
  ui.original.hidden = false;
  const started = performance.now();
  const current = translatePage(ui.article, {
    translator: t,
    view: ui.view.value,
    translateOptions: { repetitionGuard: true },
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
});
if (params.get('article') === 'en') showArticle('en');
ui.original.addEventListener('click', showOriginal);
