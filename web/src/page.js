// translatePage(root, options): a page (or any part of one) translated in place, block by block,
// as browsers' page translation does, on top of translate(texts, { html: true }): each block's
// markup is kept and its inline elements (links, emphasis) placed on the translated words by the
// engine. The originals are kept, not copied: a block's own child nodes are set aside and put
// back, so going back to the original gives the very same nodes (their listeners, their state),
// and the page's HTML is byte for byte what it was.
//
// The translator is the package's Translator (markup placed on the translated words by the
// engine's alignment, the translation memory's hits counted), or one of the web's standard API
// (Chrome's own, or tformer-wasm/polyfill's), which takes plain text: then each block's text runs
// (the text between its links and emphasis) are translated, as the paragraphs of one request, and
// no element is made or removed; its words cannot move across the markup, the price of plain text.
//
// Views (setView): 'translation' (the translation in place; with `hover`, the original's text in
// a tooltip over the block the pointer is on), 'below' and 'beside' (each block shows its
// original with the translation under it or beside it: the bilingual view), 'original'.
//
// Safety: the only markup that enters the page is the engine's HTML output, which never holds
// markup that was not markup in the block's own HTML (core/src/html/: text is escaped, elements
// come from the input's), parsed in an inert <template>; this module checks that again (each
// element of a translation must be one of its block's, by name and attributes) and keeps the
// original where that fails. The tooltip shows text only (textContent). The module's own
// elements (the bilingual pair, the tooltip, one <style>) are built with createElement.

// Elements translated as one text each: the innermost of these (a list item, a table cell, a
// paragraph). Inline elements inside them travel with the text.
export const PAGE_BLOCKS = 'h1, h2, h3, h4, h5, h6, p, li, dt, dd, th, td, caption, figcaption, blockquote';

export const PAGE_VIEWS = ['translation', 'below', 'beside', 'original'];

// One request takes the waiting blocks up to this many, or this many characters of markup.
const BATCH_BLOCKS = 32;
const BATCH_CHARS = 4000;

const STYLE_ID = 'tformer-page-style';
const STYLE = `
.tformer-pair { display: block; }
.tformer-pair > .tformer-original { display: block; opacity: 0.75; }
.tformer-pair > .tformer-translation { display: block; }
.tformer-pair[data-view="below"] > .tformer-translation { margin-top: 0.3em; }
.tformer-pair[data-view="beside"] { display: grid; grid-template-columns: 1fr 1fr; gap: 1.2em; }
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
      html: element.innerHTML,      // what is translated
      original: null,               // its own child nodes, set aside while it shows anything else
      translation: null,            // the translated nodes, once done
      pair: null,                   // the bilingual view's element, once made
    }));
    this.byElement = new Map(this.blocks.map((b) => [b.element, b]));
    this.waiting = new Set();
    this.running = false;
    this.tooltip = null;
    this.state = { blocks: this.blocks.length, translated: 0, waiting: 0, requests: [], sentences: 0, memoryHits: 0,
      error: null, done: this.blocks.length === 0 };
    this.finished = new Promise((resolve) => { this.finish = resolve; });
    if (this.state.done) this.finish(this.progress);
    addStyle(this.document);
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

  /** Puts back every block's original nodes and stops translating; the object is done with. */
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
          if (batch.length && (batch.length >= BATCH_BLOCKS || chars + b.html.length > BATCH_CHARS)) break;
          batch.push(b);
          chars += b.html.length;
        }
        for (const b of batch) this.waiting.delete(b);
        this.state.waiting = this.waiting.size;
        this.state.requests.push(batch.length);
        let results;
        try {
          results = this.standard
            ? await translateRuns(this.document, this.o.translator, batch.map((b) => b.html), this.controller.signal)
            : await this.o.translator.translate(batch.map((b) => b.html),
              { ...this.o.translateOptions, html: true, signal: this.controller.signal });
        } catch (e) {
          if (this.stopped) return;
          this.state.error = e;
          this.report();
          this.settle();
          return;
        }
        if (this.stopped) return;
        this.state.memoryHits += results[0]?.timings?.memoryHits ?? 0;
        batch.forEach((b, i) => {
          this.state.sentences += results[i].sentences.length;
          b.translation = this.parse(b, results[i].text);
          this.render(b);
          if (b.translation) this.call(this.o.onBlock, { element: b.element, result: results[i] });
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

  // The engine's HTML for a block as nodes, parsed where nothing runs (a template's content); the
  // block's original nodes stand in for a translation that holds an element its block does not.
  parse(b, html) {
    const template = this.document.createElement('template');
    template.innerHTML = html;
    const source = this.document.createElement('template');
    source.innerHTML = b.html;
    const allowed = new Set([...source.content.querySelectorAll('*')].map(signature));
    const foreign = [...template.content.querySelectorAll('*')].find((el) => !allowed.has(signature(el)));
    if (foreign) {
      this.state.error = new Error(`the translation of a block held an element its original does not (<${foreign.localName}>); ` +
        'the block is kept as it is');
      return null;
    }
    return [...template.content.childNodes];
  }

  // Shows block `b` in the current view.
  render(b) {
    const el = b.element;
    if (!b.translation) return;
    if (b.original === null) b.original = [...el.childNodes];  // first time: set aside as they are
    const view = this.currentView;
    if (view === 'original') {
      el.replaceChildren(...b.original);
      b.original = null;
      return;
    }
    if (view === 'translation') {
      el.replaceChildren(...b.translation);
      return;
    }
    if (!b.pair) {
      const pair = this.document.createElement('span');
      pair.className = 'tformer-pair';
      const original = this.document.createElement('span');
      original.className = 'tformer-original';
      const translation = this.document.createElement('span');
      translation.className = 'tformer-translation';
      if (this.languages.source) original.lang = this.languages.source;
      if (this.languages.target) translation.lang = this.languages.target;
      pair.append(original, translation);
      b.pair = pair;
    }
    b.pair.dataset.view = view;
    b.pair.firstChild.replaceChildren(...b.original);
    b.pair.lastChild.replaceChildren(...b.translation);
    el.replaceChildren(b.pair);
  }

  // The translation view with `hover`: the original's text over the block under the pointer.
  hover(event) {
    if (!this.o.hover || this.currentView !== 'translation' || this.stopped) return;
    const b = this.blockAt(event.target);
    if (!b?.translation || !b.original) return;
    if (this.tooltip?.block === b) return;
    this.hideTooltip();
    const tip = this.document.createElement('div');
    tip.className = 'tformer-hover';
    tip.setAttribute('role', 'tooltip');
    tip.setAttribute('translate', 'no');
    if (this.languages.source) tip.lang = this.languages.source;
    tip.textContent = b.original.map((n) => n.textContent).join('').replace(/\s+/g, ' ').trim();
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
    for (let n = node; n && n !== this.root.parentNode; n = n.parentNode) {
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

// Blocks' HTML translated with a standard Translator: their text runs (text nodes with a letter,
// outside translate="no" and code) as the paragraphs of one request, which a translation keeps
// apart (else one request per run); each run keeps the spaces around it. Parsed and written back
// in an inert <template>: the text goes in as text, so the HTML made holds the blocks' markup only.
async function translateRuns(document, translator, htmls, signal) {
  const templates = htmls.map((html) => {
    const t = document.createElement('template');
    t.innerHTML = html;
    return t;
  });
  const runs = [];
  for (const t of templates) {
    const walker = document.createTreeWalker(t.content, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (/\p{L}/u.test(n.data) && !n.parentElement?.closest('[translate="no"], pre, code')) runs.push(n);
    }
  }
  const texts = runs.map((n) => n.data.replace(/\s+/g, ' ').trim());
  let out = texts.length ? (await translator.translate(texts.join('\n\n'), { signal })).split(/\n{2,}/) : [];
  if (out.length !== texts.length) out = await Promise.all(texts.map((text) => translator.translate(text, { signal })));
  runs.forEach((n, i) => { n.data = `${n.data.match(/^\s*/)[0]}${out[i].trim()}${n.data.match(/\s*$/)[0]}`; });
  return templates.map((t) => ({ text: t.innerHTML, sentences: [] }));
}

// The blocks to translate, in document order: innermost block elements with text, outside
// translate="no", code and pre.
function blocksOf(root, selector) {
  return [...root.querySelectorAll(selector)].filter((el) => !el.querySelector(selector) &&
    !el.closest('[translate="no"], pre, code') && el.textContent.trim() !== '');
}

// An element by its name and attributes: what a translated element must share with one of its block's.
function signature(el) {
  return [el.localName, ...[...el.attributes].map((a) => `${a.name}=${a.value}`).sort()].join('\u0000');
}

function documentOrder(a, b) {
  return a.compareDocumentPosition(b) & 4 /* Node.DOCUMENT_POSITION_FOLLOWING */ ? -1 : 1;
}

function addStyle(document) {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = STYLE;
  document.head.append(style);
}
