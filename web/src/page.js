// translatePage(root, options): a page (or any part of one) translated in place, block by block,
// as Firefox's page translation does: the page's own elements stay where they are, with their
// listeners, their state (typed values, ticked boxes, loaded frames) and their attributes; only
// text nodes change. The engine translates each block as HTML in which every element of the block
// is stamped with a number (data-t), so that its links and emphasis come back on the translated
// words; the answer is read in an inert <template> for its text and its numbers only, and the live
// elements are arranged by those numbers (page-merge.js). No element of the answer ever enters the
// page, so no markup can appear that the page did not have: markup written as text (in the page's
// text or inside <noscript>, which a page with scripts reads as text) stays text.
//
// The translator is the package's Translator (markup placed on the translated words by the
// engine's alignment, the translation memory's hits counted), or one of the web's standard API
// (Chrome's own, or tformer-wasm/polyfill's), which takes plain text: then each block's text runs
// (the text between its elements) are translated, as the paragraphs of one request, and no element
// moves. A block with a form control, a frame or media in it is translated by text runs too, with
// either translator, so that none of those is ever moved (a moved frame loads again).
//
// Left alone, as Firefox leaves them: script, style, code-like content (code, kbd, samp, var,
// pre), form controls and their text (textarea, select, option, button, input), frames, media,
// svg and math, <noscript>/<template>, translate="no", class="notranslate" and contenteditable
// regions. Open shadow roots are walked like the page (closed ones cannot be reached by a script).
//
// Views (setView): 'translation' (the translation in place; with `hover`, the original's text in a
// tooltip over the block the pointer is on), 'below' and 'beside' (each block shows its original,
// untouched, with a copy of the translation after it, under it or in a second column beside it:
// the bilingual view; the copy holds text and formatting only: no ids, no form fields, no
// frames), 'original'. Text or nodes the
// page's own script changes or adds in a block while it is translated are left as the page wrote
// them, through setView() and restore().
import { planBlock, planRuns, applyState, buildCopy, excluded } from './page-merge.js';

// Elements translated as one text each: the innermost of these (a list item, a table cell, a
// paragraph). Inline elements inside them travel with the text.
export const PAGE_BLOCKS = 'h1, h2, h3, h4, h5, h6, p, li, dt, dd, th, td, caption, figcaption, blockquote';

export const PAGE_VIEWS = ['translation', 'below', 'beside', 'original'];

// One request takes the waiting blocks up to this many, or this many characters of markup.
const BATCH_BLOCKS = 32;
const BATCH_CHARS = 4000;

const STYLE_ID = 'tformer-page-style';
const STYLE = `
.tformer-translation { display: block; }
.tformer-translation[data-view="below"] { margin-top: 0.3em; }
:has(> .tformer-translation[data-view="beside"]) { columns: 2; column-gap: 1.2em; }
.tformer-translation[data-view="beside"] { break-before: column; }
.tformer-hover { position: absolute; z-index: 2147483647; max-width: 32em; padding: 0.4em 0.7em; border-radius: 6px;
  background: #1d1d1f; color: #fff; font: 14px/1.4 system-ui, sans-serif; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.3);
  pointer-events: none; white-space: normal; }
`;

/**
 * @param {Element} root the part of the page to translate (document.body for a whole page)
 * @param {import('../types/index.js').TranslatePageOptions} options
 * @returns {import('../types/index.js').PageTranslation}
 */
export function translatePage(root, options) {
  const o = checkPageOptions(root, options);
  return new PageTranslation(root, o);
}

function checkPageOptions(root, options) {
  const what = 'translatePage';
  if (!root || typeof root.querySelectorAll !== 'function' || !root.ownerDocument) {
    throw new TypeError(`${what}: root must be an element of a document`);
  }
  if (typeof options !== 'object' || options === null) throw new TypeError(`${what}: options with a 'translator' are required`);
  const known = ['translator', 'view', 'hover', 'lazy', 'blocks', 'skip', 'translateOptions', 'onProgress', 'onBlock', 'signal'];
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`${what}: unknown option '${key}' (known: ${known.join(', ')})`);
  }
  const { translator, view = 'translation', hover = true, lazy = true, blocks = PAGE_BLOCKS, skip = null, translateOptions = {},
    onProgress = null, onBlock = null, signal } = options;
  if (typeof translator?.translate !== 'function') throw new TypeError(`${what}: option 'translator' must be a Translator`);
  if (!PAGE_VIEWS.includes(view)) throw new TypeError(`${what}: option 'view' must be one of ${PAGE_VIEWS.join(', ')} (got ${String(view)})`);
  if (typeof hover !== 'boolean') throw new TypeError(`${what}: option 'hover' must be true or false`);
  if (typeof lazy !== 'boolean') throw new TypeError(`${what}: option 'lazy' must be true or false`);
  if (typeof blocks !== 'string' || blocks === '') throw new TypeError(`${what}: option 'blocks' must be a CSS selector`);
  if (skip !== null && typeof skip !== 'function') throw new TypeError(`${what}: option 'skip' must be a function (element) => boolean`);
  if (typeof translateOptions !== 'object' || translateOptions === null) throw new TypeError(`${what}: option 'translateOptions' must be an object`);
  for (const key of ['html', 'signal', 'key', 'supersede']) {
    if (key in translateOptions) throw new TypeError(`${what}: translateOptions.${key} is set by translatePage`);
  }
  if (onProgress !== null && typeof onProgress !== 'function') throw new TypeError(`${what}: option 'onProgress' must be a function`);
  if (onBlock !== null && typeof onBlock !== 'function') throw new TypeError(`${what}: option 'onBlock' must be a function`);
  return { translator, view, hover, lazy, blocks, skip, translateOptions, onProgress, onBlock, signal };
}

class PageTranslation {
  constructor(root, o) {
    this.root = root;
    this.o = o;
    this.document = root.ownerDocument;
    this.currentView = o.view;
    this.controller = new AbortController();
    this.stopped = false;
    const info = o.translator.info?.model ?? {};
    this.standard = isStandardTranslator(o.translator);
    this.languages = { source: info.sourceLanguage ?? o.translator.sourceLanguage ?? null,
      target: info.targetLanguage ?? o.translator.targetLanguage ?? null };
    this.blocks = blocksOf(root, o.blocks).filter((element) => !o.skip?.(element)).map((element) => ({
      element,
      plan: null,        // what is sent and the original's state (page-merge.js), made when it is sent
      translation: null, // the translated state, once done
      copy: null,        // the bilingual views' copy of the translation, once made
    }));
    this.byElement = new Map(this.blocks.map((b) => [b.element, b]));
    this.waiting = new Set();
    this.running = false;
    this.tooltip = null;
    this.state = { blocks: this.blocks.length, translated: 0, waiting: 0, requests: [], sentences: 0, memoryHits: 0,
      error: null, done: this.blocks.length === 0 };
    this.finished = new Promise((resolve) => { this.finish = resolve; });
    if (this.state.done) this.finish(this.progress);
    for (const r of new Set(this.blocks.map((b) => b.element.getRootNode()))) addStyle(this.document, r);
    this.onOver = (event) => this.hover(event);
    this.onOut = (event) => this.unhover(event);
    root.addEventListener('mouseover', this.onOver);
    root.addEventListener('mouseout', this.onOut);
    o.signal?.addEventListener('abort', () => this.restore(), { once: true });
    if (o.lazy && typeof IntersectionObserver === 'function') {
      // A block is sent when it comes near the view (a margin ahead, so that scrolling finds it done).
      this.observer = new IntersectionObserver((entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          this.observer.unobserve(entry.target);
          this.waiting.add(this.byElement.get(entry.target));
        }
        this.state.waiting = this.waiting.size;
        this.pump();
      }, { rootMargin: '200px 0px' });
      for (const b of this.blocks) this.observer.observe(b.element);
    } else {
      this.observer = null;
      for (const b of this.blocks) this.waiting.add(b);
      this.pump();
    }
  }

  /** The view shown: 'translation', 'below', 'beside' or 'original'. */
  get view() {
    return this.currentView;
  }

  /** Blocks, translated, waiting, requests (blocks per request), sentences, memoryHits, error, done. */
  get progress() {
    return { ...this.state, requests: [...this.state.requests] };
  }

  /** Resolves with the progress once every block is translated (or the translation stopped). */
  get done() {
    return this.finished;
  }

  setView(view) {
    if (!PAGE_VIEWS.includes(view)) throw new TypeError(`setView: the view must be one of ${PAGE_VIEWS.join(', ')} (got ${String(view)})`);
    if (this.stopped) throw new Error('setView: this page translation was restored (translatePage() again to translate)');
    this.currentView = view;
    this.hideTooltip();
    for (const b of this.blocks) if (b.translation) this.render(b);
  }

  /** Puts back every block's original text and stops translating; the object is done with. */
  restore() {
    if (this.stopped) return;
    this.currentView = 'original';
    this.hideTooltip();
    for (const b of this.blocks) if (b.translation) this.render(b);
    this.stopped = true;
    this.controller.abort();
    this.observer?.disconnect();
    this.root.removeEventListener('mouseover', this.onOver);
    this.root.removeEventListener('mouseout', this.onOut);
    for (const r of new Set(this.blocks.map((b) => b.element.getRootNode()))) {
      if (r !== this.document) r.getElementById?.(STYLE_ID)?.remove();
    }
    this.settle();
  }

  // Sends the waiting blocks, in document order, a batch per request, one request at a time.
  async pump() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.size && !this.stopped) {
        const batch = [];
        let chars = 0;
        for (const b of [...this.waiting].sort((x, y) => documentOrder(x.element, y.element))) {
          b.plan ??= planBlock(b.element, { runs: this.standard });
          if (batch.length && (batch.length >= BATCH_BLOCKS || chars + b.plan.size > BATCH_CHARS)) break;
          batch.push(b);
          chars += b.plan.size;
        }
        for (const b of batch) this.waiting.delete(b);
        this.state.waiting = this.waiting.size;
        this.state.requests.push(batch.length);
        let results;
        try {
          results = await this.request(batch);
        } catch (e) {
          if (this.stopped) return;
          this.state.error = e;
          this.report();
          this.settle();
          return;
        }
        if (this.stopped) return;
        this.state.memoryHits += results.memoryHits;
        batch.forEach((b, i) => {
          const { result, translation } = results[i];
          this.state.sentences += result.sentences.length;
          b.translation = translation;
          this.render(b);
          this.call(this.o.onBlock, { element: b.element, result });
        });
        this.state.translated += batch.length;
        this.report();
        if (this.state.translated === this.state.blocks) this.settle();
      }
    } finally {
      this.running = false;
      this.state.waiting = this.waiting.size;
    }
  }

  // One request for a batch: blocks sent as HTML to the package's Translator, and text runs (those
  // of the standard API's blocks, and of blocks with elements that must not move) as plain text.
  async request(batch) {
    const { signal } = this.controller;
    const out = new Array(batch.length);
    out.memoryHits = 0;
    const html = batch.map((b, i) => [b, i]).filter(([b]) => b.plan.html !== null);
    if (html.length) {
      const results = await this.o.translator.translate(html.map(([b]) => b.plan.html),
        { ...this.o.translateOptions, html: true, signal });
      out.memoryHits += results[0]?.timings?.memoryHits ?? 0;  // the request's, on its first result
      html.forEach(([b, i], k) => {
        out[i] = { result: results[k], translation: b.plan.merge(results[k].text) };
        if (out[i].translation === null) {
          // The answer would move an element that must stay (or came back unreadable): text runs.
          b.plan = planRuns(b.element);
          out[i] = null;
        }
      });
    }
    const runs = batch.map((b, i) => [b, i]).filter(([, i]) => out[i] === undefined || out[i] === null);
    if (runs.length) {
      const texts = runs.flatMap(([b]) => b.plan.runs);
      const translated = await translateTexts(this.o.translator, texts, this.standard, this.o.translateOptions, signal);
      out.memoryHits += translated.memoryHits;
      let at = 0;
      for (const [b, i] of runs) {
        const mine = translated.texts.slice(at, at + b.plan.runs.length);
        const sentences = translated.sentences.slice(at, at + b.plan.runs.length).flat();
        at += b.plan.runs.length;
        out[i] = { result: { text: mine.join(' '), sentences }, translation: b.plan.withRuns(mine) };
      }
    }
    return out;
  }

  report() {
    this.call(this.o.onProgress, this.progress);
  }

  call(callback, value) {
    try {
      callback?.(value);
    } catch (e) {
      console.error(e);  // a throwing callback must not stop the page's translation
    }
  }

  settle() {
    if (this.state.done) return;
    this.state.done = true;
    this.observer?.disconnect();
    this.finish(this.progress);
  }

  // Shows block `b` in the current view.
  render(b) {
    if (!b.translation) return;
    const view = this.currentView;
    const chrome = [];
    if (view === 'below' || view === 'beside') {
      b.copy ??= this.makeCopy(b);
      b.copy.dataset.view = view;
      chrome.push(b.copy);
    }
    try {
      applyState(b.plan, view === 'translation' ? b.translation : b.plan.original, chrome);
    } catch (e) {
      // A block the page rebuilt under us: it is left as the page has it.
      this.state.error = e;
    }
  }

  makeCopy(b) {
    const translation = this.document.createElement('span');
    translation.className = 'tformer-translation';
    translation.setAttribute('translate', 'no');
    if (this.languages.target) translation.lang = this.languages.target;
    translation.append(...buildCopy(this.document, b.plan, b.translation));
    return translation;
  }

  // The translation view with `hover`: the original's text over the block under the pointer.
  hover(event) {
    if (!this.o.hover || this.currentView !== 'translation' || this.stopped) return;
    const b = this.blockAt(event.target);
    if (!b?.translation) return;
    if (this.tooltip?.block === b) return;
    this.hideTooltip();
    const tip = this.document.createElement('div');
    tip.className = 'tformer-hover';
    tip.setAttribute('role', 'tooltip');
    tip.setAttribute('translate', 'no');
    if (this.languages.source) tip.lang = this.languages.source;
    tip.textContent = b.plan.originalText;
    const box = b.element.getBoundingClientRect();
    const view = this.document.defaultView;
    tip.style.left = `${Math.max(0, box.left + view.scrollX)}px`;
    tip.style.top = `${box.bottom + view.scrollY + 4}px`;
    this.document.body.append(tip);
    this.tooltip = { block: b, element: tip };
  }

  unhover(event) {
    if (!this.tooltip) return;
    const to = event.relatedTarget;
    if (to && this.tooltip.block.element.contains(to)) return;
    this.hideTooltip();
  }

  hideTooltip() {
    this.tooltip?.element.remove();
    this.tooltip = null;
  }

  blockAt(node) {
    for (let n = node; n && n !== this.root.parentNode; n = n.parentNode ?? n.host) {
      const b = this.byElement.get(n);
      if (b) return b;
    }
    return null;
  }
}

// A Translator of the web's standard API (its translate() resolves to a string), not the package's
// (which has `info`).
function isStandardTranslator(t) {
  return !('info' in t) && typeof t.sourceLanguage === 'string' && typeof t.targetLanguage === 'string';
}

// Plain texts translated: with a standard Translator as the paragraphs of one request, which a
// translation keeps apart (else one request per text); with the package's, as a list. Gives
// {texts, sentences (per text: the package's sentences, or none), memoryHits}.
async function translateTexts(translator, texts, standard, translateOptions, signal) {
  if (!texts.length) return { texts: [], sentences: [], memoryHits: 0 };
  if (!standard) {
    const results = await translator.translate(texts, { ...translateOptions, signal });
    return { texts: results.map((r) => r.text), sentences: results.map((r) => r.sentences),
      memoryHits: results[0]?.timings?.memoryHits ?? 0 };
  }
  let out = (await translator.translate(texts.join('\n\n'), { signal })).split(/\n{2,}/);
  if (out.length !== texts.length) out = await Promise.all(texts.map((text) => translator.translate(text, { signal })));
  return { texts: out, sentences: out.map(() => []), memoryHits: 0 };
}

// The blocks to translate, in document order: innermost block elements with text, outside what is
// left alone; open shadow roots are walked too.
function blocksOf(root, selector) {
  const found = [];
  const walk = (scope) => {
    for (const el of scope.querySelectorAll(selector)) {
      if (!el.querySelector(selector) && !excluded(el) && el.textContent.trim() !== '') found.push(el);
    }
    for (const host of scope.querySelectorAll('*')) if (host.shadowRoot && !excluded(host)) walk(host.shadowRoot);
  };
  walk(root);
  if (root.shadowRoot) walk(root.shadowRoot);
  return [...new Set(found)];
}

function documentOrder(a, b) {
  if (a.getRootNode() !== b.getRootNode()) return hostOrder(a) - hostOrder(b);
  return a.compareDocumentPosition(b) & 4 /* Node.DOCUMENT_POSITION_FOLLOWING */ ? -1 : 1;
}

// Elements in shadow roots are ordered after those of the page around their host.
function hostOrder(el) {
  let depth = 0;
  for (let r = el.getRootNode(); r.host; r = r.host.getRootNode()) depth += 1;
  return depth;
}

// The helper's stylesheet, once per document and once per shadow root with blocks (a shadow
// root's styles do not reach in from the page).
function addStyle(document, scope) {
  const where = scope === document || !scope.host ? document : scope;
  if ((where.getElementById?.(STYLE_ID)) ?? where.querySelector?.(`#${STYLE_ID}`)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = STYLE;
  (where === document ? document.head : where).append(style);
}
