// The languages of the page demo (page.js), found with the web's standard APIs, Translator and
// LanguageDetector: the page's language and each block's where it differs (LanguageDetector), and
// the languages the page can be translated into: the catalogue's target languages that
// Translator.availability() does not call "unavailable" from the page's.
//
// Each API is the browser's own only where its availability() answers "available" (native-apis.js:
// Chromium has both without their models offline, and its LanguageDetector then detects nothing),
// else tformer-wasm's: its own detectLanguage() on CLD2 (which, unlike the standard API's create(),
// needs no click to load its wasm, so the page reads its languages as it opens), and
// tformer-wasm/polyfill's Translator on the demo's catalogue; ?polyfill=force: the package's
// always. The page says which is in use (describeApis).
//
// The catalogue is ?catalog=URL: a model catalogue in Firefox's format (its Remote Settings
// server) or a model registry (a .json); by default the demo's registry of our own models.
import { install } from '../src/polyfill.js';
import { servingApi } from '../src/native-apis.js';
import { Translator as PackageTranslator, loadRegistry, detectLanguage } from '../src/index.js';

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

// The browser's own APIs (as the page found them) and the package's.
let apis = null;

/** The package's Translator and LanguageDetector on the demo's catalogue; the browser's kept aside (`force`: not used). */
export function installStandardApis({ catalog, force }) {
  const browser = { Translator: globalThis.Translator, LanguageDetector: globalThis.LanguageDetector };
  const own = install({ catalog, force });
  apis = { browser, own, force, detector: null, translators: new Map() };
}

let detector = null;

// The package's detector, as the standard one detects: ranked [{detectedLanguage, confidence}].
const packageDetector = { detect: async (text) => (await detectLanguage(text)).ranked };

// The detector: the browser's where its availability() answers "available" (and its create()
// works), else the package's; `apis.detector` says which and what the browser answered.
function languageDetector() {
  detector ??= (async () => {
    const choice = await servingApi(apis.browser.LanguageDetector, apis.own.LanguageDetector, {}, { force: apis.force });
    apis.detector = choice;
    if (choice.which === 'browser') {
      try {
        return await choice.api.create();
      } catch (e) {
        apis.detector = { api: apis.own.LanguageDetector, which: 'package', answer: `available, but create() failed: ${e.message}` };
      }
    }
    return packageDetector;
  })();
  detector.catch(() => { detector = null; });
  return detector;
}

/**
 * Which implementation of each API the page uses, for the tests and the line on the page:
 * {detector: {which, answer}, translators: {[language]: {which, answer}}}.
 */
export function apisInUse() {
  const plain = (c) => c && { which: c.which, answer: c.answer };
  return { detector: plain(apis.detector), translators: Object.fromEntries([...apis.translators].map(([k, c]) => [k, plain(c)])) };
}

// "the browser's LanguageDetector" or "tformer-wasm's LanguageDetector (the browser's answers
// "unavailable")".
function implementation(name, choice) {
  if (choice.which === 'browser') return `the browser's ${name}`;
  const own = name === 'LanguageDetector' ? "tformer-wasm's CLD2 detector" : `tformer-wasm's ${name}`;
  return own + (choice.answer ? ` (the browser's own ${name}.availability() answers "${choice.answer}")` : '');
}

/**
 * The line that says which APIs the page uses: the detector's, and the translators' for the
 * languages offered (`packageTranslator`: the page translates with the package's own Translator
 * whatever the standard API would be).
 */
export function describeApis({ packageTranslator }) {
  const detected = apis.detector ? `Languages detected by ${implementation('LanguageDetector', apis.detector)}` : '';
  let translated;
  if (packageTranslator) {
    translated = "translated by tformer-wasm's own Translator (links and emphasis carried onto the translated words)";
  } else {
    const by = new Map();  // description -> languages
    for (const [language, choice] of apis.translators) {
      const d = implementation('Translator', choice);
      by.set(d, [...(by.get(d) ?? []), languageName(language)]);
    }
    translated = [...by].map(([d, languages]) => `translated into ${languages.join(', ')} by ${d}`).join('; ');
  }
  return [detected, translated].filter(Boolean).join('; ') + '.';
}

/** The standard Translator chosen for source -> target by targetLanguages() (the package's where none was). */
export function standardTranslator(target) {
  return (apis.translators.get(target) ?? { api: apis.own.Translator }).api;
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
 * The languages `source` can be translated into: [{ language, availability, which }] of the
 * catalogue's targets (`targets`) other than `source`, as Translator.availability() says,
 * unavailable ones left out; each through the browser's Translator where it answers "available"
 * for the pair, else the package's (which: 'browser' or 'package').
 */
export async function targetLanguages(source, targets) {
  const out = [];
  apis.translators.clear();
  for (const language of targets) {
    if (language === source) continue;
    const options = { sourceLanguage: source, targetLanguage: language };
    const choice = await servingApi(apis.browser.Translator, apis.own.Translator, options, { force: apis.force });
    const availability = choice.which === 'browser' ? 'available' : await apis.own.Translator.availability(options);
    if (availability === 'unavailable') continue;
    apis.translators.set(language, choice);
    out.push({ language, availability, which: choice.which });
  }
  return out;
}
