// The demo's glossary: a small table of terms (source, target, any case) for the current language
// pair, which the page passes to translate() as its `glossary` option. Rows are added and removed
// with buttons, kept in localStorage per language pair (a glossary is about two languages), and
// each change translates the text again. A row without a source is not used yet; a row without a
// target keeps its source as it is (do not translate).
const STORAGE_PREFIX = 'tformer-demo-glossary:';
const EDIT_DEBOUNCE_MS = 400;

/**
 * Builds the editor into `container` (a <details>). `changed()` is called when the glossary in use
 * changes. Returns {entries(): the glossary for translate(), setPair(from, to), key(): a string
 * that changes whenever entries() does}.
 */
export function setupGlossaryEditor(container, { changed }) {
  const intro = document.createElement('p');
  intro.className = 'meta';
  intro.textContent = 'Terms to translate your way, or to keep as they are (leave the translation empty). Whole words, ' +
    'longest first. The term is put in as written (not inflected), where the model\'s alignment says its translation went.';
  const table = document.createElement('table');
  table.className = 'glossary-table';
  table.innerHTML = '<thead><tr><th scope="col">Term</th><th scope="col">Translation</th>' +
    '<th scope="col" title="Match the term in any case (Berlin, BERLIN, berlin)">Any case</th><th scope="col" aria-label="Remove"></th></tr></thead>';
  const body = document.createElement('tbody');
  table.append(body);
  const add = Object.assign(document.createElement('button'), { type: 'button', id: 'glossary-add', className: 'small', textContent: 'Add term' });
  container.append(intro, table, add);

  let storageKey = null;
  let timer = 0;

  function row(entry = { source: '', target: '', anyCase: false }) {
    const tr = document.createElement('tr');
    const cell = (control) => {
      const td = document.createElement('td');
      td.append(control);
      tr.append(td);
      return control;
    };
    const source = cell(Object.assign(document.createElement('input'), { type: 'text', className: 'glossary-source', value: entry.source,
      placeholder: 'term', spellcheck: false, autocomplete: 'off', maxLength: 200 }));
    source.setAttribute('aria-label', 'Term');
    const target = cell(Object.assign(document.createElement('input'), { type: 'text', className: 'glossary-target', value: entry.target,
      placeholder: 'keep as is', spellcheck: false, autocomplete: 'off', maxLength: 200 }));
    target.setAttribute('aria-label', 'Translation (empty: keep the term)');
    const anyCase = cell(Object.assign(document.createElement('input'), { type: 'checkbox', className: 'glossary-any-case', checked: entry.anyCase }));
    anyCase.setAttribute('aria-label', 'Any case');
    const remove = cell(Object.assign(document.createElement('button'), { type: 'button', className: 'small glossary-remove', textContent: 'Remove' }));
    remove.setAttribute('aria-label', 'Remove this term');
    remove.addEventListener('click', () => {
      tr.remove();
      save();
    });
    for (const input of [source, target]) input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(save, EDIT_DEBOUNCE_MS); });
    anyCase.addEventListener('change', save);
    body.append(tr);
    return source;
  }

  function rows() {
    return [...body.rows].map((tr) => ({
      source: tr.querySelector('.glossary-source').value,
      target: tr.querySelector('.glossary-target').value,
      anyCase: tr.querySelector('.glossary-any-case').checked,
    }));
  }

  let used = '[]';
  function save() {
    clearTimeout(timer);
    if (storageKey) {
      try {
        localStorage.setItem(storageKey, JSON.stringify(rows()));
      } catch {
        // Storage full or denied (private mode): the glossary still works for this visit.
      }
    }
    const now = JSON.stringify(entries());
    if (now !== used) {
      used = now;
      changed();
    }
  }

  /** The rows with a term, as translate() takes them (spaces at the ends dropped). */
  function entries() {
    return rows().filter((r) => r.source.trim() !== '').map((r) => {
      const e = { source: r.source.trim() };
      if (r.target.trim() !== '') e.target = r.target.trim();
      if (r.anyCase) e.caseSensitive = false;
      return e;
    });
  }

  function setPair(from, to) {
    const key = `${STORAGE_PREFIX}${from || '?'}-${to || '?'}`;
    if (key === storageKey) return;
    storageKey = key;
    body.replaceChildren();
    let saved = [];
    try {
      saved = JSON.parse(localStorage.getItem(key) ?? '[]');
    } catch {
      saved = [];  // unreadable: start empty
    }
    if (!Array.isArray(saved)) saved = [];
    for (const r of saved) {
      if (r && typeof r.source === 'string' && typeof r.target === 'string') row({ source: r.source, target: r.target, anyCase: r.anyCase === true });
    }
    const summary = container.querySelector('summary');
    if (summary) summary.dataset.count = String(body.rows.length);
    used = JSON.stringify(entries());
  }

  add.addEventListener('click', () => {
    container.open = true;
    row().focus();
  });
  return { entries, setPair, key: () => used };
}
