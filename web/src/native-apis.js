// The browser's own Translator and LanguageDetector are used only where they can serve. Chromium
// has both without their models on a device that never downloaded them (offline, headless, a
// managed machine): LanguageDetector.availability() answers "unavailable" and create() rejects with
// "Model not available"; Translator.availability() may answer "downloadable" for a download that
// never comes. So the browser's API is chosen only when its availability() answers "available",
// otherwise the package's own (tformer-wasm/polyfill's classes).

/**
 * Which implementation serves a request: `native` (the browser's class, or undefined) when its
 * availability(options) answers "available", else `own`. Resolves to {api, which, answer}:
 * which is 'browser' or 'package'; answer is what the browser's availability() said ('available',
 * 'downloadable', 'unavailable', ...), or null when the browser has no such API (or was not
 * asked: `force`).
 * @param {Function|undefined} native  the browser's Translator or LanguageDetector
 * @param {Function} own  the package's
 * @param {object} [options]  availability()'s options ({sourceLanguage, targetLanguage}, {expectedInputLanguages})
 * @param {{force?: boolean}} [how]  force: the package's, whatever the browser has
 */
export async function servingApi(native, own, options = {}, { force = false } = {}) {
  if (force || typeof native?.availability !== 'function' || native === own) return { api: own, which: 'package', answer: null };
  let answer;
  try {
    answer = await native.availability(options);
  } catch (e) {
    answer = `an error (${e?.message ?? e})`;
  }
  return answer === 'available' ? { api: native, which: 'browser', answer } : { api: own, which: 'package', answer };
}
