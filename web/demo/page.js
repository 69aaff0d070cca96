// "Translate this page": the article of page.html translated in place, block by block, with the
// web's standard Translator and LanguageDetector (tformer-wasm/polyfill; page-languages.js): the
// page's language and a block's where it differs are detected, the target languages are the
// catalogue's, and the translation is the standard API's, plain text: each block's text runs (the
// text between its links, emphasis and the like) are translated and no element is made or
// removed, so its markup stays as it was (the way the specification's discussion of rich text
// leans: text nodes in, text nodes out). The price: a run is translated without the words around
// it (the package's own translate(html, { html: true }) places markup with the engine's alignment).
// Blocks in view go first, the others as they scroll into view (IntersectionObserver); the blocks
// waiting are sent together, their runs as the paragraphs of one request, so a page of short
// blocks costs a few requests, not one per block. The engine runs in the package's Worker: the
// page never blocks. "Show original" puts back each block's original markup, kept as it was read,
// so the page is again byte for byte what it was. The article is German or English (?article=en,
// or the selector), and, as a browser's page translation does, the page's <html lang> says the
// language it is in: the translation's, then the original's again.
import { installStandardApis, detectLanguageOf, blockLanguages, catalogueTargets, targetLanguages, languageName } from './page-languages.js';

// One request takes the waiting blocks up to this many, or this many characters of text.
const BATCH_BLOCKS = 32;
const BATCH_CHARS = 4000;
// Elements translated as one text each: the innermost of these (a list item, a table cell, a
// paragraph). Inline elements inside them travel with the text.
const BLOCKS = 'h1, h2, h3, h4, h5, h6, p, li, dt, dd, th, td, caption, figcaption, blockquote';

const $ = (id) => document.getElementById(id);
const ui = { translate: $('translate'), original: $('original'), status: $('status'), article: $('article'), language: $('article-language'),
  target: $('target-language'), detected: $('detected') };
const params = new URLSearchParams(location.search);
const articles = { de: ui.article.innerHTML, en: $('article-en').innerHTML };
// The catalogue (?catalog=URL: Firefox's format or a registry), and the browser's own APIs replaced
// with ?polyfill=force (headless Chromium has them, without models).
const catalog = params.get('catalog') ?? 'registry.json';
installStandardApis({ catalog, force: params.get('polyfill') === 'force' });

// What the tests read: the state (the languages detected and offered), and the requests made
// (how many blocks each took).
const state = { mode: 'original', blocks: 0, translated: 0, waiting: 0, requests: [], error: null,
  page: null, blockLanguages: [], targets: [], languagesRead: 0 };
window.pageDemo = state;

const translators = new Map();  // 'de->en' -> Promise of a standard Translator
let foreign = new Map();  // block -> {language, confidence}: the blocks in another language than the page
let originals = null;   // Map block -> its innerHTML as read before the first translation of this round
let round = null;       // {controller, observer, waiting: Set, running}

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
  readLanguages();
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
    ui.target.replaceChildren(...targets.map(({ language, availability }) =>
      new Option(`${languageName(language)}${availability === 'available' ? '' : ` (${availability})`}`, language)));
    if (targets.some((t) => t.language === chosen)) ui.target.value = chosen;
    ui.translate.disabled = targets.length === 0;
    if (!targets.length) status(`The catalogue translates nothing from ${languageName(page.language)}.`);
  } catch (e) {
    state.error = e.message;
    status(`The languages could not be read: ${e.message}`);
  } finally {
    state.languagesRead++;
  }
}

// The standard Translator from `from` to `to`, created once (its download shown as it goes).
function ensureTranslator(from, to) {
  const key = `${from}->${to}`;
  if (!translators.has(key)) {
    const created = Translator.create({
      sourceLanguage: from, targetLanguage: to,
      monitor: (m) => m.addEventListener('downloadprogress', (e) => {
        status(`loading ${languageName(from)} \u2192 ${languageName(to)}: ${Math.round(e.loaded * 100)}%`);
      }),
    });
    translators.set(key, created);
    created.catch(() => translators.delete(key));
  }
  return translators.get(key);
}

// The text runs of a block that are translated: its text nodes with a letter, outside
// translate="no" and code.
function runsOf(block) {
  const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
  const runs = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/\p{L}/u.test(n.data) && !n.parentElement.closest('[translate="no"], pre, code')) runs.push(n);
  }
  return runs;
}

// Translates the runs of `blocks` in one request: the runs as paragraphs, which a translation
// keeps apart (else, one request per run). Each run keeps the spaces around it.
async function translateBlocks(t, blocks, signal) {
  const runs = blocks.flatMap(runsOf);
  const texts = runs.map((n) => n.data.replace(/\s+/g, ' ').trim());
  let out = (await t.translate(texts.join('\n\n'), { signal })).split(/\n{2,}/);
  if (out.length !== texts.length) out = await Promise.all(texts.map((text) => t.translate(text, { signal })));
  return () => runs.forEach((n, i) => { n.data = `${n.data.match(/^\s*/)[0]}${out[i].trim()}${n.data.match(/\s*$/)[0]}`; });
}

async function translatePage() {
  const to = ui.target.value;
  // Each block from its own language: the page's, or the one detected in it. A block already in
  // the target language stays as it is, as does one in a language the catalogue cannot translate.
  const sourceOf = (b) => foreign.get(b)?.language ?? state.page.language;
  const sources = new Set(blocksOf(ui.article).map(sourceOf));
  sources.delete(to);
  for (const from of sources) {
    if (await Translator.availability({ sourceLanguage: from, targetLanguage: to }) === 'unavailable') sources.delete(from);
  }
  ui.translate.disabled = true;
  ui.language.disabled = true;
  const t = {};
  try {
    // The page's own language first: its model is the one the page waits for.
    for (const from of [...sources].sort((a, b) => (b === state.page.language) - (a === state.page.language))) {
      t[from] = await ensureTranslator(from, to);
    }
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
  document.documentElement.lang = to;
  ui.translate.hidden = true;
  ui.original.hidden = false;
  const blocks = blocksOf(ui.article).filter((b) => t[sourceOf(b)]);
  originals = new Map(blocks.map((b) => [b, b.innerHTML]));
  Object.assign(state, { mode: 'translating', blocks: blocks.length, translated: 0, waiting: 0, requests: [], error: null });
  const current = { controller: new AbortController(), waiting: new Set(), running: false, observer: null,
    translators: t, source: new Map(blocks.map((b) => [b, sourceOf(b)])) };
  round = current;
  // A block is sent when it comes near the view (a margin ahead, so that scrolling finds it done).
  current.observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      current.observer.unobserve(entry.target);
      current.waiting.add(entry.target);
    }
    state.waiting = current.waiting.size;
    pump(current);
  }, { rootMargin: '200px 0px' });
  for (const b of blocks) current.observer.observe(b);
  status(`translating ${blocks.length} blocks...`);
}

// Sends the waiting blocks, in document order, a batch per request, one request at a time.
async function pump(current) {
  if (current.running) return;
  current.running = true;
  try {
    while (current.waiting.size && round === current) {
      const batch = [];
      let chars = 0;
      for (const b of [...current.waiting].sort(documentOrder)) {
        const text = b.textContent;
        if (batch.length && (batch.length >= BATCH_BLOCKS || chars + text.length > BATCH_CHARS)) break;
        batch.push(b);
        chars += text.length;
      }
      for (const b of batch) current.waiting.delete(b);
      state.waiting = current.waiting.size;
      // One request per language of the batch's blocks.
      const byLanguage = Map.groupBy(batch, (b) => current.source.get(b));
      for (const [from, blocks] of byLanguage) {
        state.requests.push(blocks.length);
        let apply;
        try {
          apply = await translateBlocks(current.translators[from], blocks, current.controller.signal);
        } catch (e) {
          if (e?.name === 'AbortError' || round !== current) return;
          state.error = e.message;
          status(`Translation failed: ${e.message}`);
          return;
        }
        if (round !== current) return;
        apply();
      }
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
if (params.get('article') !== 'en') readLanguages();
