// The HTML translation table (tests/fixtures/html/cases.json, shared with tests/core/test_html.cc)
// and the invariants an HTML translation keeps whatever the model says, checked by a scan of the
// markup that does not share the engine's parser: the output's elements nest properly, every start
// tag of the input (attributes and all) is there as often as in the input and none is made up,
// each inside the same parent element (for well-formed input), and what is not translated
// (script, style, pre, code, translate="no") is there byte for byte.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const htmlCases = JSON.parse(readFileSync(path.join(here, '..', 'fixtures', 'html', 'cases.json'), 'utf8'));

/** The table's blocks as projectHtml() takes them. */
export function blocksOf(c) {
  return c.blocks.map((block) => block.map((s) => ({ source: s.source, target: s.target, ...(s.align ? { alignment: s.align } : {}) })));
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** {wellFormed, problem, startTags: Map(tag -> count), nesting: Map('parent tag > tag' -> count)} */
export function scanTags(html) {
  const startTags = new Map();
  const nesting = new Map();
  const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  const open = [];  // [name, start tag]
  let problem = null;
  const fail = (why) => { problem ??= why; };
  let i = 0;
  while (i < html.length) {
    if (html[i] !== '<') { i++; continue; }
    if (html.startsWith('<!--', i)) {
      const e = html.indexOf('-->', i);
      i = e < 0 ? html.length : e + 3;
      continue;
    }
    const end = html[i + 1] === '/';
    const nameAt = i + (end ? 2 : 1);
    if (!/[A-Za-z]/.test(html[nameAt] ?? '')) {
      if (html[i + 1] === '!' || html[i + 1] === '?') {
        const e = html.indexOf('>', i);
        i = e < 0 ? html.length : e + 1;
      } else {
        fail(`a bare '<' at ${i}`);
        i++;
      }
      continue;
    }
    let j = nameAt;
    while (j < html.length && !/[\s>/]/.test(html[j])) j++;
    const name = html.slice(nameAt, j).toLowerCase();
    let quote = null;
    for (; j < html.length && (quote || html[j] !== '>'); j++) {
      if (quote ? html[j] === quote : html[j] === '"' || html[j] === "'") quote = quote ? null : html[j];
    }
    if (j >= html.length) { fail("a tag without '>'"); break; }
    const tag = html.slice(i, j + 1);
    i = j + 1;
    if (end) {
      if (open.at(-1)?.[0] !== name) fail(`</${name}> closes ${open.at(-1)?.[0] ?? 'nothing'}`);
      else open.pop();
      continue;
    }
    count(startTags, tag);
    count(nesting, `${open.at(-1)?.[1] ?? ''} > ${tag}`);
    if (VOID.has(name) || tag.endsWith('/>')) continue;
    if (name === 'script' || name === 'style') {
      const e = html.toLowerCase().indexOf(`</${name}`, i);
      if (e < 0) { fail(`unclosed ${name}`); break; }
      i = e;
    }
    open.push([name, tag]);
  }
  if (open.length) fail(`<${open.at(-1)[0]}> not closed`);
  return { wellFormed: problem === null, problem, startTags, nesting };
}

/** The parts of an input that must come out byte for byte. */
export function keptVerbatim(html) {
  const kept = [];
  for (const marker of ['<script', '<style', '<pre', '<code', 'translate="no"']) {
    for (let at = html.indexOf(marker); at >= 0; at = html.indexOf(marker, at + 1)) {
      const start = html.lastIndexOf('<', at);
      const name = html.slice(start + 1).match(/^[^\s>]+/)[0];
      const close = html.indexOf(`</${name}>`, at);
      if (close >= 0) kept.push(html.slice(start, close + name.length + 3));
    }
  }
  return kept;
}

/** Throws (node:assert) when `output` breaks an invariant of translating `input`. */
export function checkInvariants(assert, input, output) {
  const o = scanTags(output);
  assert.ok(o.wellFormed, `${o.problem}: ${input} -> ${output}`);
  const i = scanTags(input);
  // Each start tag as often as in the input, and (for a well-formed input) inside the same parent.
  assert.deepEqual(new Map([...o.startTags].sort()), new Map([...i.startTags].sort()), `the same start tags: ${input} -> ${output}`);
  if (i.wellFormed) assert.deepEqual(new Map([...o.nesting].sort()), new Map([...i.nesting].sort()), `the same nesting: ${input} -> ${output}`);
  for (const kept of keptVerbatim(input)) assert.ok(output.includes(kept), `${kept} kept byte for byte: ${output}`);
  if (i.startTags.size === 0 && input.trim()) assert.ok(output.trim(), `text kept: ${input} -> ${output}`);
}
