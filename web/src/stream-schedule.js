// How translateStream() hands a request's texts to the engine: for latency first, then for
// throughput. One engine call per batch of sentences would make the first sentence wait for the
// whole batch (a batch's sentences decode together, and a stream gives them in input order while
// the engine sorts them by length). So the first sentences go alone or in small calls (1, then 2,
// then 4 sentences), and the rest in calls of LARGE_CALL_SENTENCES sentences, each of which the
// engine batches as translate() does; on a threaded engine the first sentence alone, and the rest
// in one call (streamSchedule).
//
// A call holds whole pieces of the texts, cut only where the engine's own sentence splitter
// (core/src/text/sentence_splitter.cc) cuts too, so that every sentence is translated exactly as
// translate() translates it: at a line break, or where Intl.Segmenter ends a sentence and the
// engine's rule agrees: . ! ? or … (then any more marks and closing quotes or brackets), ASCII white
// space, and a capital, a digit or an opening quote or bracket; a single period not after one of
// the engine's abbreviations, a single letter or a number of up to three digits. Other sentence
// ends are not cut: their sentences go in the same call, and the engine splits them as it likes.

/** The sentences of the first call; each of the SMALL_CALLS small calls has twice as many as the one
 * before (1, 2, 4), every later one LARGE_CALL_SENTENCES, about one engine batch (4096 padded
 * tokens). With one thread this costs nothing in engine work (CPU time, 100 FLORES sentences:
 * within 2% of one call). */
export const FIRST_CALL_SENTENCES = 1;
export const SMALL_CALLS = 3;
export const LARGE_CALL_SENTENCES = 64;

/**
 * The calls of a stream on an engine of `threads` threads: {first, small, large} for streamCalls.
 * With more than one thread, the engine's thread pool meets at every matrix product, a fixed cost
 * that only large batches amortize: a sentence alone costs about 14 times the CPU time it costs
 * with one thread, and 1+2+4 sentences about a fifth of the whole request's time. So a threaded
 * stream sends its first sentence alone and the rest in one call, which the engine batches as
 * translate() does; its sentences still come one by one, as their rows of a batch end.
 */
export function streamSchedule(threads) {
  if (threads > 1) return { first: FIRST_CALL_SENTENCES, small: 1, large: Infinity };
  return { first: FIRST_CALL_SENTENCES, small: SMALL_CALLS, large: LARGE_CALL_SENTENCES };
}

// The engine's abbreviations (sentence_splitter.cc: abbreviations(); the tests check the two agree).
export const ENGINE_ABBREVIATIONS = new Set([
  'Mr', 'Mrs', 'Ms', 'Dr', 'Prof', 'St', 'Sr', 'Jr', 'vs', 'etc', 'e.g', 'i.e', 'cf', 'approx', 'No',
  'Nr', 'Fig', 'Jan', 'Feb', 'Mar', 'Apr', 'Jun', 'Jul', 'Aug', 'Sep', 'Sept', 'Oct', 'Nov', 'Dec',
  'Inc', 'Ltd', 'Co', 'Corp', 'Gen', 'Sen', 'Rep', 'Gov', 'Mt', 'Hr', 'Fr', 'Frau', 'Hrn', 'bzw',
  'ca', 'vgl', 'usw', 'z.B', 'd.h', 'u.a', 's.o', 'u.U', 'z.T', 'o.ä', 'Str', 'Tel', 'geb', 'Abs',
  'Art', 'Bd', 'Jh', 'Mio', 'Mrd', 'evtl', 'inkl', 'exkl', 'ggf', 'sog', 'bzgl', 'min', 'max']);

const CLOSERS = `"'”’»“«)\\]`;
const SENTENCE_END = new RegExp(`(?:[.!?]+|…[.!?]*)[${CLOSERS}]*$`);
// What the engine takes for the start of a sentence (starts_sentence): an ASCII or Latin-1 capital,
// a digit, an opening quote or bracket.
const SENTENCE_START = /^(?:[A-Z0-9"'([]|[\u00C0-\u00D6\u00D8-\u00DE]|[„“»«‘])/;

/**
 * The places where `text` may be cut between two engine calls: offsets where a sentence begins
 * (after the white space that ends the one before), each with the number of sentences before it.
 * @returns {{cuts: {at: number, sentences: number}[], sentences: number}}
 */
export function cutsOf(text, language) {
  const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(language ?? undefined, { granularity: 'sentence' }) : null;
  if (!segmenter) return { cuts: [], sentences: text.trim() ? 1 : 0 };
  const cuts = [];
  let sentences = 0;
  let previous = null;  // the last segment with text: {body, end}
  for (const { segment, index } of segmenter.segment(text)) {
    const body = segment.trim();
    if (!body) continue;
    const start = index + segment.indexOf(body);
    if (previous && safeCut(previous.body, text.slice(previous.end, start), body)) cuts.push({ at: start, sentences });
    sentences++;
    previous = { body, end: start + body.length };
  }
  return { cuts, sentences };
}

// Whether the engine ends a sentence between `before` and `after`, separated by `gap` (white space).
function safeCut(before, gap, after) {
  if (gap.includes('\n')) return true;  // the engine splits every line
  // The engine's white space is ASCII's (no-break spaces join).
  if (!/^[ \t\r\f\v]+$/.test(gap) || !SENTENCE_START.test(after)) return false;
  const end = SENTENCE_END.exec(before);
  if (!end) return false;
  if (end[0] !== '.') return true;  // several marks, !, ?, …, closers: no abbreviation rule
  const word = before.slice(0, end.index).split(/[ \t\r\f\v\n("]/).at(-1);
  return !(ENGINE_ABBREVIATIONS.has(word) || /^[A-Za-z]$/.test(word) || /^[0-9]{1,3}$/.test(word));
}

/**
 * The engine calls of a streamed request over `texts`: [[{paragraph, text, start, separator}]],
 * in input order. Each item is a piece of text `paragraph` (its `text`, from offset `start`);
 * `separator` joins its translation to that of the piece before it in the same text ('' for a
 * text's first piece, else its line breaks, or ' '). A text's pieces are consecutive; a text
 * without cuts is one piece, as given.
 */
export function streamCalls(texts, language, { first = FIRST_CALL_SENTENCES, small = SMALL_CALLS, large = LARGE_CALL_SENTENCES } = {}) {
  const calls = [];
  let call = [];
  let inCall = 0;  // sentences in `call`
  let target = first;
  const close = () => {
    if (!call.length) return;
    calls.push(call);
    call = [];
    inCall = 0;
    target = calls.length < small ? target * 2 : large;
  };
  texts.forEach((text, paragraph) => {
    const { cuts, sentences } = cutsOf(text, language);
    // The offsets where this text's pieces start, and the sentences before each.
    const starts = [{ at: 0, sentences: 0 }, ...cuts];
    let piece = 0;
    while (piece < starts.length) {
      // Take as few pieces as reach the call's target (at least one).
      let next = piece + 1;
      while (next < starts.length && inCall + (starts[next].sentences - starts[piece].sentences) < target) next++;
      const begin = starts[piece].at, end = next < starts.length ? starts[next].at : text.length;
      const before = text.slice(0, begin);
      call.push({ paragraph, text: text.slice(begin, end), start: begin, separator: piece === 0 ? '' : separatorOf(before.slice(before.trimEnd().length)) });
      inCall += (next < starts.length ? starts[next].sentences : sentences) - starts[piece].sentences;
      piece = next;
      if (inCall >= target) close();
    }
  });
  close();
  return calls;
}

// What joins two pieces' translations, as the engine joins two sentences of one text: their line
// breaks, else a space.
function separatorOf(whitespace) {
  const breaks = (whitespace.match(/\n/g) ?? []).length;
  return breaks ? '\n'.repeat(breaks) : ' ';
}
