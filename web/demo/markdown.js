// A small Markdown renderer for the model cards (models/<name>/README.md) shown in the demo:
// headings, paragraphs, lists, tables, code blocks, and inline code, bold, emphasis and links.
// It builds DOM nodes, never HTML strings, so nothing in a card can inject markup or scripts.
// The demo serves its files unbundled, which is why this is not an npm Markdown library.

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(\[[^\]]+\]\([^)\s]+\))/;

function inline(text, base) {
  const out = [];
  let rest = text;
  for (;;) {
    const m = INLINE.exec(rest);
    if (!m) break;
    if (m.index) out.push(document.createTextNode(rest.slice(0, m.index)));
    const [token] = m;
    if (m[1]) out.push(el('code', token.slice(1, -1)));
    else if (m[2]) out.push(el('strong', inline(token.slice(2, -2), base)));
    else if (m[3]) out.push(el('em', inline(token.slice(1, -1), base)));
    else {
      const [, label, href] = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token);
      let url = null;
      try { url = new URL(href, base); } catch { /* shown as text */ }
      if (url && /^https?:$/.test(url.protocol)) {
        const a = el('a', inline(label, base));
        a.href = url.href;
        a.target = '_blank';
        a.rel = 'noopener';
        out.push(a);
      } else {
        out.push(document.createTextNode(label));
      }
    }
    rest = rest.slice(m.index + token.length);
  }
  if (rest) out.push(document.createTextNode(rest));
  return out;
}

function el(name, children) {
  const e = document.createElement(name);
  if (typeof children === 'string') e.textContent = children;
  else if (children) e.append(...children);
  return e;
}

const cells = (line) => line.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

/** Markdown text -> a DocumentFragment. `base`: the URL relative links are resolved against. */
export function renderMarkdown(text, base = document.baseURI) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const root = document.createDocumentFragment();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { i++; continue; }
    let m;
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      // The card's own headings sit below the page's: # becomes h3.
      root.append(el(`h${Math.min(6, m[1].length + 2)}`, inline(m[2], base)));
      i++;
    } else if (/^```/.test(line)) {
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      root.append(el('pre', [el('code', code.join('\n'))]));
    } else if (/^\s*\|/.test(line) && i + 1 < lines.length && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1])) {
      const table = el('table');
      const head = cells(line);
      table.append(el('thead', [el('tr', head.map((c) => el('th', inline(c, base))))]));
      const body = el('tbody');
      for (i += 2; i < lines.length && /^\s*\|/.test(lines[i]); i++) body.append(el('tr', cells(lines[i]).map((c) => el('td', inline(c, base)))));
      table.append(body);
      const wrap = el('div', [table]);
      wrap.className = 'table-scroll';
      root.append(wrap);
    } else if ((m = /^\s*([-*]|\d+\.)\s+/.exec(line))) {
      const list = el(/\d/.test(m[1]) ? 'ol' : 'ul');
      while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
        let item = lines[i].replace(/^\s*([-*]|\d+\.)\s+/, '');
        // continuation lines of the item (indented, not a new item)
        for (i++; i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*]|\d+\.)\s+/.test(lines[i]); i++) item += ` ${lines[i].trim()}`;
        list.append(el('li', inline(item, base)));
      }
      root.append(list);
    } else {
      const para = [lines[i++].trim()];  // the first line always (a lone '|' line is text)
      while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|```|\s*\||\s*([-*]|\d+\.)\s+)/.test(lines[i])) para.push(lines[i++].trim());
      root.append(el('p', inline(para.join(' '), base)));
    }
  }
  return root;
}
