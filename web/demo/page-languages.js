// The languages of the page demo (page.js), found with the web's standard APIs, Translator and
// LanguageDetector, as tformer-wasm/polyfill defines them (the browser's own where it has them and
// ?polyfill=force is not given): the page's language and each block's where it differs
// (LanguageDetector on CLD2), and the languages the page can be translated into: the catalogue's
// target languages that Translator.availability() does not call "unavailable" from the page's.
//
// The catalogue is ?catalog=URL: a model catalogue in Firefox's format (its Remote Settings
// server) or a model registry (a .json); by default the demo's registry of our own models.
import { install } from '../src/polyfill.js';
import { Translator as PackageTranslator, loadRegistry } from '../src/index.js';

// A block is told to be in another language than the page only when it has this many characters
// and the detector gives that language this much of the text: CLD2 is not sure of short text.
const BLOCK_MIN_CHARS = 40;
const BLOCK_MIN_CONFIDENCE = 0.8;

const names = new Intl.DisplayNames(['en'], { type: 'language' });

/** A tag's name in English ("German"), or the tag. */
export function languageName(tag) {
  try {
    return names.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** Defines Translator and LanguageDetector on the demo's catalogue where the browser has none (`force`: always). */
export function installStandardApis({ catalog, force }) {
  install({ catalog, force });
}

let detector = null;

function languageDetector() {
  detector ??= LanguageDetector.create();
  detector.catch(() => { detector = null; });
  return detector;
}

/** The language of `text`: { language, confidence } (CLD2's first; 'und' when it cannot tell). */
export async function detectLanguageOf(text) {
  const [first] = await (await languageDetector()).detect(text);
  return { language: first.detectedLanguage, confidence: first.confidence };
}

/**
 * The blocks of `blocks` in another language than `pageLanguage`, each with its text long enough
 * for the detector to be sure: Map block -> { language, confidence }.
 */
export async function blockLanguages(blocks, pageLanguage) {
  const detector = await languageDetector();
  const other = new Map();
  for (const block of blocks) {
    const text = block.textContent.replace(/\s+/g, ' ').trim();
    if (text.length < BLOCK_MIN_CHARS) continue;
    const [first] = await detector.detect(text);
    if (first.detectedLanguage !== 'und' && first.detectedLanguage !== pageLanguage && first.confidence >= BLOCK_MIN_CONFIDENCE) {
      other.set(block, { language: first.detectedLanguage, confidence: first.confidence });
    }
  }
  return other;
}

/** The target languages the catalogue has (its models' or pairs' `to`), sorted. */
export async function catalogueTargets(catalog) {
  const targets = /\.json(?:[?#]|$)/i.test(catalog)
    ? (await loadRegistry(catalog)).models.filter((m) => !m.test).map((m) => m.to)
    : (await PackageTranslator.pairs({ catalog })).map((p) => p.to);
  return [...new Set(targets)].sort();
}

/**
 * The languages `source` can be translated into: [{ language, availability }] of the catalogue's
 * targets (`targets`) other than `source`, as Translator.availability() says, unavailable ones left out.
 */
export async function targetLanguages(source, targets) {
  const out = [];
  for (const language of targets) {
    if (language === source) continue;
    const availability = await Translator.availability({ sourceLanguage: source, targetLanguage: language });
    if (availability !== 'unavailable') out.push({ language, availability });
  }
  return out;
}
