// The `glossary` option of Translator.create and translate(): terms to translate the user's way,
// or to keep as they are. Checked here for its shape (an array of {source, target?,
// caseSensitive?}, strings without lone surrogates), copied so that later changes to the
// caller's array change nothing. The engine checks the rest (empty or overlong terms, control
// characters, a source given twice, at most `limits.maxGlossaryEntries` entries) and matches and
// puts the terms in (core/src/text/glossary.h).
const ENTRY_KEYS = ['source', 'target', 'caseSensitive'];
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '...' : value)}`;
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : `${typeof value} ${String(value)}`;
}

/** Returns a checked copy of `glossary` (an array of plain {source, target?, caseSensitive?}). */
export function checkGlossary(what, glossary) {
  const bad = (message) => new TypeError(`${what}: option 'glossary': ${message}`);
  if (!Array.isArray(glossary)) throw bad(`must be an array of {source, target?, caseSensitive?} (got ${describe(glossary)})`);
  return glossary.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw bad(`item ${i} must be an object {source, target?, caseSensitive?} (got ${describe(entry)})`);
    }
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.includes(key)) throw bad(`item ${i}: unknown key '${key}' (known: ${ENTRY_KEYS.join(', ')})`);
    }
    const out = {};
    if (typeof entry.source !== 'string') throw bad(`item ${i}: 'source' must be a string (got ${describe(entry.source)})`);
    if (LONE_SURROGATE.test(entry.source)) throw bad(`item ${i}: 'source' has a lone surrogate (not Unicode text)`);
    out.source = entry.source;
    if (entry.target !== undefined) {
      if (typeof entry.target !== 'string') throw bad(`item ${i}: 'target' must be a string or left out (got ${describe(entry.target)})`);
      if (LONE_SURROGATE.test(entry.target)) throw bad(`item ${i}: 'target' has a lone surrogate (not Unicode text)`);
      out.target = entry.target;
    }
    if (entry.caseSensitive !== undefined) {
      if (typeof entry.caseSensitive !== 'boolean') {
        throw bad(`item ${i}: 'caseSensitive' must be true or false (got ${describe(entry.caseSensitive)})`);
      }
      out.caseSensitive = entry.caseSensitive;
    }
    return out;
  });
}
