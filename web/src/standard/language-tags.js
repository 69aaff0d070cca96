// Language tags as the web's Translator and LanguageDetector APIs take them (writing-assistance-apis,
// "Language tags"; ECMA-402): validated and canonicalized by Intl, and matched to the tags a
// model supports by best fit.

/** A canonical tag (Intl.getCanonicalLocales); a RangeError for a structurally invalid one, as the spec says. */
export function canonicalTag(tag) {
  return Intl.getCanonicalLocales(String(tag))[0];
}

/** A list of tags canonicalized and deduplicated, in order. */
export function canonicalTags(tags) {
  if (tags === undefined) return [];
  if (tags === null || typeof tags !== 'object' || typeof tags[Symbol.iterator] !== 'function')
    throw new TypeError('expectedInputLanguages must be a sequence of language tags');
  return [...new Set([...tags].map(canonicalTag))];
}

// A tag's language and script once filled in with the likely subtags (Intl.Locale.maximize):
// "zh-TW" -> zh-Hant, "zh" -> zh-Hans, "en-US" -> en-Latn.
function likely(tag) {
  try {
    const max = new Intl.Locale(tag).maximize();
    return { language: max.language, script: max.script ?? '', region: max.region ?? '' };
  } catch {
    return { language: tag.split('-')[0].toLowerCase(), script: '', region: '' };
  }
}

/**
 * The best fit for `requested` among `available` (canonical tags), or undefined: ECMA-402's
 * LookupMatchingLocaleByBestFit, which leaves the algorithm to the implementation. The tag itself,
 * else the available tag of the same language and (likely) script, preferring the same region:
 * "en-GB" fits "en", "zh-TW" fits "zh-Hant" (not "zh", which is Simplified), "sr-Latn" does not fit
 * "sr" (Cyrillic).
 */
export function bestFit(available, requested) {
  if (available.includes(requested)) return requested;
  const want = likely(requested);
  let fit;
  for (const tag of available) {
    const have = likely(tag);
    if (have.language !== want.language || have.script !== want.script) continue;
    if (have.region === want.region) return tag;
    // Without a region match, the least specific tag ("en" rather than "en-AU" for "en-GB").
    if (fit === undefined || tag.length < fit.length) fit = tag;
  }
  return fit;
}
