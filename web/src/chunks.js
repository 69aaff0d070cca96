// Long texts in chunks of whole sentences, so that a request made with a `key` (translator.js) can
// be dropped between two chunks when a newer request supersedes it, without stopping the engine
// in the middle of a wasm call (which restarts it), and its results come chunk by chunk.
// Sentences are found by Intl.Segmenter in the model's source language; a chunk closes at about
// CHUNK_CHARS characters or at a line break. The text between two chunks (spaces, line breaks) is
// kept as the separator of their translations, so that line breaks and blank lines survive the
// cut as they do in one request.

/** About how many characters a chunk of a long text holds (whole sentences, so often a little more). */
export const CHUNK_CHARS = 400;

/**
 * The chunks of `text`: [{text, start, sentences, separator}], where `start` is the index in
 * `text` where the chunk's text begins, `sentences` counts the chunk's sentences and `separator` is
 * what its translation is followed by in the whole translation: '' after the last chunk, the line
 * breaks between two chunks where the text has any, else ' '.
 * A text of at most CHUNK_CHARS characters is one chunk, exactly as given.
 * @param {string} text
 * @param {string} [language] the source language (BCP 47), for Intl.Segmenter's rules
 */
export function chunksOf(text, language) {
  const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(language ?? undefined, { granularity: 'sentence' }) : null;
  const count = (t) => (segmenter ? [...segmenter.segment(t)].filter(({ segment }) => segment.trim()).length : 1);
  if (text.length <= CHUNK_CHARS || !segmenter) return [{ text, start: 0, sentences: count(text), separator: '' }];
  const chunks = [];
  let current = '';
  let sentences = 0;
  let gap = '';  // the whitespace before the chunk being filled
  let at = 0;    // where `current` begins in `text`
  const flush = () => {
    const body = current.trim();
    const lead = current.length - current.trimStart().length;
    if (body) {
      if (chunks.length) chunks.at(-1).separator = separatorOf(gap + current.slice(0, lead));
      chunks.push({ text: body, start: at + lead, sentences, separator: '' });
      gap = current.slice(current.trimEnd().length);
    } else {
      gap += current;
    }
    at += current.length;
    current = '';
    sentences = 0;
  };
  for (const { segment } of segmenter.segment(text)) {
    current += segment;
    if (segment.trim()) sentences++;
    if (current.length >= CHUNK_CHARS || /\n\s*$/.test(segment)) flush();
  }
  flush();
  return chunks.length ? chunks : [{ text, start: 0, sentences: 0, separator: '' }];
}

// What joins two chunks' translations: their line breaks, else a space.
function separatorOf(whitespace) {
  const breaks = (whitespace.match(/\n/g) ?? []).length;
  return breaks ? '\n'.repeat(breaks) : ' ';
}
