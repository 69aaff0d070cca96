// "Translate this page": the article of page.html translated in place, block by block, with its
// markup (links, emphasis) carried onto the translated words by the engine's HTML mode
// (translate(texts, { html: true })). Blocks in view go first, the others as they scroll into
// view (IntersectionObserver); the blocks waiting are sent together, many in one request (an
// array of texts is one batch for the engine), so a page of short blocks costs a few requests,
// not one per block. The engine runs in the package's Worker: the page never blocks. "Show
// original" puts back each block's original markup, kept as it was read, so the page is again
// byte for byte what it was. The article is German or English (?article=en, or the selector): the
// model is the one from its language into the other, and, as a browser's page translation does,
// the page's <html lang> says the language it is in: the translation's, then the original's again.
import { Translator, loadRegistry } from '../src/index.js';
import { markUnsure, clearMarks, setupToggle } from './confidence-marks.js';

// One request takes the waiting blocks up to this many, or this many characters of markup.
const BATCH_BLOCKS = 32;
const BATCH_CHARS = 4000;
// Elements translated as one text each: the innermost of these (a list item, a table cell, a
// paragraph). Inline elements inside them travel with the text.
const BLOCKS = 'h1, h2, h3, h4, h5, h6, p, li, dt, dd, th, td, caption, figcaption, blockquote';

const $ = (id) => document.getElementById(id);
const ui = { translate: $('translate'), original: $('original'), status: $('status'), article: $('article'), language: $('article-language') };
const params = new URLSearchParams(location.search);
// Each article's language and the language it is translated into.
const OTHER = { de: 'en', en: 'de' };
const articles = { de: ui.article.innerHTML, en: $('article-en').innerHTML };

// What the tests read: the state, and the requests made (how many blocks each took).
const state = { mode: 'original', blocks: 0, translated: 0, waiting: 0, requests: [], error: null };
window.pageDemo = state;

let translator = null;   // for the article's language: {language, translator}
let originals = null;   // Map block -> its innerHTML as read before the first translation of this round
let round = null;       // {controller, observer, waiting: Set, running}
let loading = null;

function status(text) {
  ui.status.textContent = text;
}

// The blocks to translate, in document order: innermost block elements with text, outside
// translate="no" and code.
function blocksOf(root) {
  return [...root.querySelectorAll(BLOCKS)].filter((el) => !el.querySelector(BLOCKS) && !el.closest('[translate="no"], pre, code') &&
    el.textContent.trim() !== '');
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

async function translatePage() {
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
  // The page is in the translation's language from now on (as the blocks change).
  document.documentElement.lang = OTHER[articleLanguage()];
  ui.translate.hidden = true;
  ui.original.hidden = false;
  const blocks = blocksOf(ui.article);
  originals = new Map(blocks.map((b) => [b, b.innerHTML]));
  Object.assign(state, { mode: 'translating', blocks: blocks.length, translated: 0, waiting: 0, requests: [], error: null });
  const current = { controller: new AbortController(), waiting: new Set(), running: false, observer: null };
  round = current;
  // A block is sent when it comes near the view (a margin ahead, so that scrolling finds it done).
  current.observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      current.observer.unobserve(entry.target);
      current.waiting.add(entry.target);
    }
    state.waiting = current.waiting.size;
    pump(t, current);
  }, { rootMargin: '200px 0px' });
  for (const b of blocks) current.observer.observe(b);
  status(`translating ${blocks.length} blocks...`);
}

// Sends the waiting blocks, in document order, a batch per request, one request at a time.
async function pump(t, current) {
  if (current.running) return;
  current.running = true;
  try {
    while (current.waiting.size && round === current) {
      const batch = [];
      let chars = 0;
      for (const b of [...current.waiting].sort(documentOrder)) {
        const html = originals.get(b);
        if (batch.length && (batch.length >= BATCH_BLOCKS || chars + html.length > BATCH_CHARS)) break;
        batch.push(b);
        chars += html.length;
      }
      for (const b of batch) current.waiting.delete(b);
      state.waiting = current.waiting.size;
      state.requests.push(batch.length);
      let results;
      try {
        results = await t.translate(batch.map((b) => originals.get(b)), { html: true, repetitionGuard: true, confidence: true,
          signal: current.controller.signal });
      } catch (e) {
        if (e?.name === 'AbortError' || round !== current) return;
        state.error = e.message;
        status(`Translation failed: ${e.message}`);
        return;
      }
      if (round !== current) return;
      batch.forEach((b, i) => {
        b.innerHTML = results[i].text;
        markUnsure(b, results[i].sentences);
      });
      state.translated += batch.length;
      if (state.translated === state.blocks) {
        state.mode = 'translated';
        status(`translated ${state.blocks} blocks in ${state.requests.length} requests`);
        current.observer.disconnect();
      } else {
        status(`translated ${state.translated} of ${state.blocks} blocks (the rest as you scroll)`);
      }
    }
  } finally {
    current.running = false;
  }
}

function documentOrder(a, b) {
  return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

function showOriginal() {
  const current = round;
  round = null;
  if (current) {
    current.observer.disconnect();
    current.controller.abort();
  }
  clearMarks();
  for (const [block, html] of originals ?? []) block.innerHTML = html;
  originals = null;
  document.documentElement.lang = articleLanguage();
  Object.assign(state, { mode: 'original', translated: 0, waiting: 0 });
  ui.original.hidden = true;
  ui.translate.hidden = false;
  status('');
}

ui.translate.addEventListener('click', translatePage);
ui.language.addEventListener('change', () => showArticle(ui.language.value));
if (params.get('article') === 'en') showArticle('en');
ui.original.addEventListener('click', showOriginal);
setupToggle($('confidence'), $('confidence-legend'));
