// How translatePage changes a block without replacing the page's nodes, as Firefox's page
// translation does (translations-document.sys.mjs stamps data-moz-translations-id and merges by it):
//
//   planBlock(block)  the block's HTML with each element stamped data-t="<n>" (elements left alone
//                     sent as empty placeholders), and its state as it is: each element's child
//                     list and each text node's text. A block with an element that must never
//                     move (a frame, a form control, media) is planned by text runs instead.
//   plan.merge(html)  the engine's answer read in an inert <template> for its text and its numbers
//                     only: the translated state, in which the same live elements hold the
//                     translated text (the block's own text nodes reused in order, new ones made
//                     past them). Null when the answer would move an element that must stay.
//   planRuns(block)   the block's text runs (text nodes with a letter), translated one by one
//                     (plan.withRuns): the same elements, the same nodes, only their text changed.
//   applyState()      puts a state in place with as few moves as there can be: elements in order
//                     stay, the others move; nodes the page added since are kept where they were,
//                     and text the page changed is left as the page wrote it.
//   buildCopy()       the translated state as new nodes for the bilingual views: text and
//                     formatting only (no ids, no form fields, no frames, no handlers).
//
// No node of the engine's answer is ever put into the page: only its text (as text nodes) and its
// numbers (to find live elements) are read, so the page cannot gain markup it did not have.

// Elements whose content is left as it is (Firefox's list, and form controls): not prose, not text
// a page shows as prose, or the user's own.
const LEFT_ALONE = new Set(['script', 'style', 'noscript', 'noembed', 'noframes', 'template', 'xmp', 'plaintext',
  'textarea', 'select', 'option', 'optgroup', 'datalist', 'button', 'input', 'iframe', 'frame', 'object', 'embed',
  'applet', 'video', 'audio', 'canvas', 'svg', 'math', 'metadata', 'code', 'kbd', 'samp', 'var', 'pre', 'meter',
  'progress', 'output', 'head', 'title']);
// Elements that must stay where they are: moving one reloads it (frames), stops it (media) or takes
// the user's focus or selection from it (form controls). A block holding one keeps its elements in
// their order.
const UNMOVABLE = new Set(['iframe', 'frame', 'object', 'embed', 'applet', 'video', 'audio', 'input', 'textarea',
  'select', 'button', 'canvas']);
// Elements with no content: sent as an inline void element, or as a break.
const VOID = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'image', 'input', 'source', 'track', 'wbr']);
// Names the engine reads as such (its inline and block elements); any other element is sent as a
// span (custom elements), or a div where it is a block.
const ENGINE_NAMES = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'data', 'del', 'dfn', 'em', 'font', 'i',
  'ins', 'label', 'mark', 'q', 's', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'div', 'p',
  'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'tr', 'td', 'th', 'blockquote', 'section', 'article', 'aside',
  'header', 'footer', 'nav', 'figure', 'figcaption', 'caption', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ruby', 'rt', 'rp']);
// What a bilingual copy keeps of an element: these formatting elements (with a few harmless
// attributes); of any other, its text.
const COPY_ELEMENTS = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'del', 'dfn', 'em', 'i', 'ins', 'mark', 'q', 's',
  'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'ruby', 'rt', 'rp']);
const COPY_ATTRIBUTES = ['lang', 'dir', 'title', 'class'];

const TEXT = 3;
const ELEMENT = 1;

function isEditable(el) {
  const v = el.getAttribute('contenteditable');
  return v !== null && v.toLowerCase() !== 'false';
}

// An element whose own content translatePage leaves as it is.
function leftAlone(el) {
  return LEFT_ALONE.has(el.localName) || el.namespaceURI !== 'http://www.w3.org/1999/xhtml' ||
    el.getAttribute('translate')?.trim().toLowerCase() === 'no' || el.classList.contains('notranslate') || isEditable(el);
}

function parentOf(node) {
  return node.parentNode?.nodeType === 11 /* a shadow root */ ? node.parentNode.host ?? null : node.parentElement;
}

/**
 * Whether `el` is inside (or is) something left alone: an element of LEFT_ALONE, translate="no"
 * (unless a nearer translate="yes" says otherwise), class="notranslate" or an editable region,
 * across shadow roots up to the page.
 */
export function excluded(el) {
  let translateSaid = false;
  for (let n = el; n; n = parentOf(n)) {
    const t = n.getAttribute('translate')?.trim().toLowerCase();
    if (!translateSaid && (t === 'yes' || t === 'no' || t === '')) {
      translateSaid = true;
      if (t === 'no') return true;
    }
    if (LEFT_ALONE.has(n.localName) || n.classList.contains('notranslate') || isEditable(n)) return true;
  }
  return false;
}

function escapeText(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
}

function containsUnmovable(el) {
  return UNMOVABLE.has(el.localName) || [...UNMOVABLE].some((name) => el.getElementsByTagName(name).length > 0);
}

class BlockPlan {
  constructor(block) {
    this.block = block;
    this.document = block.ownerDocument;
    this.ids = [];                    // the stamped elements: data-t="<n>" is ids[n]
    this.parents = new Map();         // stamped element -> its parent in the original
    this.original = { lists: new Map(), texts: new Map() };
    this.managed = new Set([block]);  // every node this plan has placed or may place
    this.elements = new Set([block]); // the elements whose child lists it sets
    this.detached = new Set();        // nodes it took out of the page (not the page's doing)
    this.adopted = new Set();         // text nodes the page changed: left as the page wrote them
    this.written = new Map();         // text node -> the text it was last given
    this.runNodes = [];               // text nodes with a letter, in order
    this.frozen = false;              // holds an element that must not move
    this.html = this.serialize(block);
    this.originalText = block.textContent.replace(/\s+/g, ' ').trim();
  }

  // The content of `el` as sent, recording its state.
  serialize(el) {
    const list = [...el.childNodes];
    this.original.lists.set(el, list);
    this.elements.add(el);
    let out = '';
    for (const n of list) {
      this.managed.add(n);
      if (n.nodeType === TEXT) {
        this.original.texts.set(n, n.data);
        if (/\p{L}/u.test(n.data)) this.runNodes.push(n);
        out += escapeText(n.data);
      } else if (n.nodeType === ELEMENT) {
        const id = this.ids.push(n) - 1;
        this.parents.set(n, el);
        if (containsUnmovable(n)) this.frozen = true;
        const name = n.localName;
        if (name === 'br' || name === 'hr') out += `<br data-t="${id}">`;
        else if (VOID.has(name)) out += `<img data-t="${id}">`;
        else if (leftAlone(n)) out += name === 'pre' ? `<div data-t="${id}" translate="no"></div>` : `<span data-t="${id}" translate="no"></span>`;
        else {
          const sent = ENGINE_NAMES.has(name) ? name : 'span';
          out += `<${sent} data-t="${id}">${this.serialize(n)}</${sent}>`;
        }
      }
      // Comments and the like are not sent; they stay where they are among the elements.
    }
    return out;
  }

  get size() {
    return this.html?.length ?? this.runs.reduce((n, r) => n + r.length, 0);
  }

  /** The translated state from the engine's HTML, or null where it would move what must stay. */
  merge(html) {
    const template = this.document.createElement('template');
    template.innerHTML = html;
    const lists = new Map();
    const texts = new Map();
    const used = new Set();
    const pools = new Map([...this.original.lists].map(([el, l]) => [el, l.filter((n) => n.nodeType === TEXT)]));
    const take = (el, data) => {
      let n = pools.get(el)?.shift();
      if (!n) {
        n = this.document.createTextNode('');
        this.detached.add(n);  // made here, not yet in the page
      }
      this.managed.add(n);
      texts.set(n, data);
      return n;
    };
    const build = (el, from) => {
      const list = [];
      for (const c of from.childNodes) {
        if (c.nodeType === TEXT) {
          list.push(take(el, c.data));
        } else if (c.nodeType === ELEMENT) {
          const id = c.getAttribute('data-t');
          const live = id !== null && /^\d+$/.test(id) ? this.ids[Number(id)] : undefined;
          if (live && !used.has(live)) {
            used.add(live);
            list.push(live);
            if (this.original.lists.has(live)) build(live, c);
          } else if (c.textContent) {
            list.push(take(el, c.textContent));  // an element twice, or unknown: its words as text
          }
        }
      }
      // Comments of the original stay, after the element they followed.
      const originalList = this.original.lists.get(el);
      originalList?.forEach((n, i) => {
        if (n.nodeType === TEXT || n.nodeType === ELEMENT) return;
        const before = originalList.slice(0, i).reverse().find((m) => m.nodeType === ELEMENT && list.includes(m));
        list.splice(before ? list.indexOf(before) + 1 : 0, 0, n);
      });
      lists.set(el, list);
    };
    build(this.block, template.content);
    // Elements the answer left out stay in the page, at the end of their parent.
    for (const el of this.ids) {
      if (used.has(el)) continue;
      const parent = this.parents.get(el);
      if (!lists.has(parent)) lists.set(parent, [...this.original.lists.get(parent)]);  // which holds it already
      else if (!lists.get(parent).includes(el)) lists.get(parent).push(el);
      if (this.original.lists.has(el) && !lists.has(el)) lists.set(el, [...this.original.lists.get(el)]);
    }
    if (this.frozen && !this.keepsElementOrder(lists)) return null;
    return { lists, texts };
  }

  // Whether every element keeps its parent and its place among its siblings' elements.
  keepsElementOrder(lists) {
    for (const [el, list] of this.original.lists) {
      const before = list.filter((n) => n.nodeType === ELEMENT);
      const after = (lists.get(el) ?? list).filter((n) => n.nodeType === ELEMENT);
      if (before.length !== after.length || before.some((n, i) => n !== after[i])) return false;
    }
    return true;
  }

  /** The block's text runs, each with its spaces collapsed: what withRuns() takes translated. */
  get runs() {
    return this.runNodes.map((n) => n.data.replace(/\s+/g, ' ').trim());
  }

  /** The translated state from the runs' translations: the same nodes, each run's text replaced. */
  withRuns(translated) {
    const texts = new Map();
    this.runNodes.forEach((n, i) => {
      const text = this.original.texts.get(n);
      texts.set(n, `${text.match(/^\s*/)[0]}${String(translated[i] ?? '').trim()}${text.match(/\s*$/)[0]}`);
    });
    return { lists: this.original.lists, texts };
  }
}

/** A block's plan: sent as stamped HTML (html), or by text runs (html null) with `runs`. */
export function planBlock(block, { runs = false } = {}) {
  const plan = new BlockPlan(block);
  if (runs || plan.frozen) plan.html = null;
  return plan;
}

/** A block's plan by text runs: nothing moves, only text changes. */
export function planRuns(block) {
  return planBlock(block, { runs: true });
}

/**
 * Puts `state` (plan.original, or a state from merge() or withRuns()) in the page, with `chrome`
 * (the helper's own elements) at the block's end.
 */
export function applyState(plan, state, chrome = []) {
  for (const c of chrome) {
    if (!plan.managed.has(c) && c.parentNode === null) plan.detached.add(c);
    plan.managed.add(c);
    plan.elements.add(c);
  }
  for (const [el, list] of state.lists) {
    let desired = list;
    if (el === plan.block) desired = [...list, ...chrome];
    reconcile(plan, el, desired);
  }
  for (const [n, data] of state.texts) setText(plan, n, data);
}

function setText(plan, n, data) {
  if (plan.adopted.has(n)) return;
  const expected = plan.written.get(n) ?? plan.original.texts.get(n);
  if (expected !== undefined && n.data !== expected) {
    plan.adopted.add(n);  // the page's own script changed it: it stays as the page wrote it
    return;
  }
  if (n.data !== data) n.data = data;
  plan.written.set(n, data);
}

// Whether the page took `n` away (removed it, or moved it somewhere this plan does not manage).
function goneByThePage(plan, n) {
  const parent = n.parentNode;
  if (parent === null) return !plan.detached.has(n);
  return !plan.elements.has(parent);
}

// Makes `el`'s children `desired`, moving as few nodes as there can be: the longest run of nodes
// already in order stays. Nodes the page added are kept, before the node they preceded.
function reconcile(plan, el, desired) {
  const current = [...el.childNodes];
  const wanted = desired.filter((n) => !goneByThePage(plan, n) || n.parentNode === el);
  const final = [];
  const foreign = current.filter((n) => !plan.managed.has(n));
  if (foreign.length) {
    const placed = new Map();  // managed node -> page nodes to put before it
    let pending = [];
    for (const n of current) {
      if (!plan.managed.has(n)) pending.push(n);
      else if (pending.length && wanted.includes(n)) {
        placed.set(n, pending);
        pending = [];
      }
    }
    for (const n of wanted) final.push(...(placed.get(n) ?? []), n);
    final.push(...pending);
  } else {
    final.push(...wanted);
  }
  const keep = new Set(final);
  for (const n of current) {
    if (!keep.has(n)) {
      el.removeChild(n);
      plan.detached.add(n);
    }
  }
  const position = new Map([...el.childNodes].map((n, i) => [n, i]));
  const stay = longestIncreasing(final.map((n) => (n.parentNode === el ? position.get(n) : -1)));
  let ref = null;
  for (let i = final.length - 1; i >= 0; i -= 1) {
    const n = final[i];
    if (!stay.has(i)) {
      el.insertBefore(n, ref);
      plan.detached.delete(n);
    }
    ref = n;
  }
}

// The indices of a longest strictly increasing subsequence of the non-negative values.
function longestIncreasing(values) {
  const tails = [];      // tails[k]: index into values of the smallest tail of a run of length k+1
  const previous = new Array(values.length).fill(-1);
  values.forEach((v, i) => {
    if (v < 0) return;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const out = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) out.add(i);
  return out;
}

function safeHref(document, href) {
  try {
    const url = new URL(href, document.baseURI);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? href : null;
  } catch {
    return null;
  }
}

/** The translated state as new nodes: text and formatting only, for the bilingual views. */
export function buildCopy(document, plan, state) {
  const copyOf = (el) => {
    const out = [];
    for (const n of state.lists.get(el) ?? plan.original.lists.get(el) ?? []) {
      if (n.nodeType === TEXT) {
        out.push(document.createTextNode(state.texts.get(n) ?? n.data));
      } else if (n.nodeType === ELEMENT) {
        if (n.localName === 'br') {
          out.push(document.createElement('br'));
        } else if (!plan.original.lists.has(n)) {
          // Left alone: its text (code, a name not to translate), never the element itself; form
          // controls, frames, media and scripts give nothing.
          if (!containsUnmovable(n) && !['script', 'style', 'template', 'noscript', 'svg', 'math'].includes(n.localName) &&
            n.textContent.trim()) {
            const span = document.createElement('span');
            span.textContent = n.textContent;
            out.push(span);
          }
        } else if (COPY_ELEMENTS.has(n.localName)) {
          const c = document.createElement(n.localName);
          for (const name of COPY_ATTRIBUTES) if (n.hasAttribute(name)) c.setAttribute(name, n.getAttribute(name));
          const href = n.localName === 'a' && n.hasAttribute('href') ? safeHref(document, n.getAttribute('href')) : null;
          if (href !== null) c.setAttribute('href', href);
          c.append(...copyOf(n));
          out.push(c);
        } else {
          out.push(...copyOf(n));
        }
      }
    }
    return out;
  };
  return copyOf(plan.block);
}
