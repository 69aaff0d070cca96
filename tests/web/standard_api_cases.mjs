// The web's Translator and LanguageDetector APIs, case by case, as the specification
// (webmachinelearning/translation-api with writing-assistance-apis) says they behave. One file for
// every place they run: the polyfill (tformer-wasm/polyfill) in Node, on a page and in a Worker,
// and a browser's own implementation where it has one. No imports: the browser tests load it as a
// module of its own text. Each case throws on a failure.
//
// env: { Translator, LanguageDetector, own: true for a browser's implementation (cases that need
//        the polyfill's catalogue are then left out), pair: [source, target] a downloadable arc,
//        abortPair: another one, for aborting its download, brokenTranslator?: a Translator class
//        with a downloadable arc brokenPair whose download fails (default: Translator),
//        pivotPair?: an arc translated through English, with pivotTranslator?: a Translator class
//        that has downloaded none of its models (default: Translator),
//        skip?: { Translator?: reason, LanguageDetector?: reason }: that API's cases are skipped
//        with the reason (a browser's own implementation that cannot serve here) }
// A case marked `activates` creates what must be downloaded: on a page, create() then needs
// transient user activation, which whoever runs the cases there gives it (a real click) just
// before the case; Workers and Node have none to need.

const GERMAN = 'Der JAS 39C Gripen stürzte gegen 9:30 Uhr Ortszeit auf eine Startbahn und explodierte. Der Flughafen wurde geschlossen.';
const FRENCH = 'Le JAS 39C Gripen s’est écrasé sur une piste autour de 9 h 30 heure locale (0230 UTC) et a explosé, provoquant la fermeture de l’aéroport aux vols commerciaux.';
// Long enough to be still translating 5 ms after it was asked for, also where the engine runs in
// the calling thread (a Service Worker), whose call cannot be interrupted: an abort that came during
// the call counts when it ends.
const LONG = GERMAN.repeat(100);

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function rejects(promise, test, message) {
  try {
    await promise;
  } catch (e) {
    check(test(e), `${message}: got ${e?.name}: ${e?.message}`);
    return e;
  }
  throw new Error(`${message}: it did not reject`);
}

const isDOMException = (name) => (e) => e instanceof DOMException && e.name === name;

function progressRecorder(events) {
  return (m) => m.addEventListener('downloadprogress', (e) => events.push(e.loaded));
}

function checkProgress(events) {
  check(events.length >= 1, 'downloadprogress events were fired');
  check(events.at(-1) === 1, `the last downloadprogress is exactly 1 (${events.join(', ')})`);
  for (let i = 1; i < events.length; ++i) check(events[i] >= events[i - 1], `progress does not go back (${events.join(', ')})`);
  for (const e of events) check(e >= 0 && e <= 1, `progress within 0..1 (${e})`);
}

// Every request for a catalogue attachment (a model file) that `run` makes in this scope, by URL.
async function attachmentRequests(run) {
  const original = globalThis.fetch;
  const asked = [];
  globalThis.fetch = (input, init) => {
    const url = String(input?.url ?? input);
    if (url.includes('/attachments/')) asked.push(url);
    return original(input, init);
  };
  try {
    await run();
  } finally {
    globalThis.fetch = original;
  }
  return asked;
}

async function readAll(stream) {
  const chunks = [];
  for (const reader = stream.getReader(); ;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

export function cases(env) {
  const { Translator, LanguageDetector, own = false } = env;
  const [source, target] = env.pair ?? ['de', 'en'];
  const list = [];
  const add = (name, run, { polyfillOnly = false, requires = null, activates = false } = {}) => {
    const api = name.startsWith('LanguageDetector') ? 'LanguageDetector' : 'Translator';
    list.push({ name, run, activates, skip: env.skip?.[api] ?? (polyfillOnly && own ? 'needs the polyfill\'s catalogue'
      : requires && !env[requires] ? `no ${requires} in this catalogue` : null) });
  };

  add('Translator.availability: "downloadable" before create(), "available" after; progress ends at exactly 1', async () => {
    const before = await Translator.availability({ sourceLanguage: source, targetLanguage: target });
    check(['downloadable', 'available'].includes(before), `before create(): ${before}`);
    if (!own) check(before === 'downloadable', `the polyfill's arc is downloadable before its first create(): ${before}`);
    const events = [];
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target, monitor: progressRecorder(events) });
    checkProgress(events);
    check(await Translator.availability({ sourceLanguage: source, targetLanguage: target }) === 'available', 'available after create()');
    translator.destroy();
  }, { activates: true });

  add('Translator: tags canonicalized and fitted; translate() gives a translation; translateStreaming() chunks join to it', async () => {
    const translator = await Translator.create({ sourceLanguage: `${source.toUpperCase()}-${source === 'de' ? 'AT' : 'US'}`, targetLanguage: target });
    check(translator.sourceLanguage === source, `sourceLanguage ${translator.sourceLanguage}`);
    check(translator.targetLanguage === target, `targetLanguage ${translator.targetLanguage}`);
    const whole = await translator.translate(GERMAN);
    check(typeof whole === 'string' && whole.length > 20 && whole !== GERMAN, `a translation: ${whole}`);
    const stream = translator.translateStreaming(GERMAN);
    check(stream instanceof ReadableStream, 'translateStreaming returns a ReadableStream');
    const chunks = [];
    for (const reader = stream.getReader(); ;) {
      const { value, done } = await reader.read();
      if (done) break;
      check(typeof value === 'string', 'chunks are strings');
      chunks.push(value);
    }
    check(chunks.join('') === whole, `the chunks (${JSON.stringify(chunks)}) join to translate()'s result (${JSON.stringify(whole)})`);
    // for await reads it in every browser (WebKit's ReadableStream has no async iterator of its
    // own), and it is a ReadableStream all the same; leaving the loop cancels it and unlocks it.
    const iterated = translator.translateStreaming(GERMAN);
    check(Object.prototype.toString.call(iterated) === '[object ReadableStream]', `${Object.prototype.toString.call(iterated)}`);
    const parts = [];
    for await (const chunk of iterated) parts.push(chunk);
    check(parts.join('') === whole, `for await: ${JSON.stringify(parts)}`);
    const left = translator.translateStreaming(GERMAN);
    for await (const chunk of left.values({ preventCancel: false })) if (chunk) break;
    check(!left.locked, 'the stream is unlocked once the loop is left');
    check(await translator.translate('') === '', 'an empty input translates to itself');
    translator.destroy();
  });

  add('Translator: measureInputUsage and inputQuota; over the quota, QuotaExceededError', async () => {
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target });
    const usage = await translator.measureInputUsage(GERMAN);
    check(Number.isFinite(usage) && usage >= 0, `usage ${usage}`);
    check(typeof translator.inputQuota === 'number' && translator.inputQuota > 0, `inputQuota ${translator.inputQuota}`);
    if (Number.isFinite(translator.inputQuota) && usage > 0) {
      const over = 'a '.repeat(Math.ceil(translator.inputQuota / 2) + 1);
      await rejects(translator.translate(over), (e) => e instanceof DOMException && e.name === 'QuotaExceededError' &&
        e.requested > translator.inputQuota && e.quota === translator.inputQuota, 'over the quota');
    }
    translator.destroy();
  });

  add('Translator: the same language on both sides is "available" and translates to itself', async () => {
    check(await Translator.availability({ sourceLanguage: 'fr', targetLanguage: 'fr' }) === 'available', 'fr -> fr');
    check(await Translator.availability({ sourceLanguage: 'en-US', targetLanguage: 'en-GB' }) === 'available', 'en-US -> en-GB');
    const events = [];
    const same = await Translator.create({ sourceLanguage: 'fr', targetLanguage: 'fr', monitor: progressRecorder(events) });
    checkProgress(events);
    check(await same.translate(FRENCH) === FRENCH, 'fr -> fr gives its input');
    const chunks = [];
    for (const reader = same.translateStreaming(FRENCH).getReader(); ;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    check(chunks.join('') === FRENCH, 'streamed too');
    same.destroy();
  });

  add('Translator: an unsupported arc is "unavailable" and create() rejects with NotSupportedError; bad tags are RangeError', async () => {
    check(await Translator.availability({ sourceLanguage: 'tlh', targetLanguage: 'en' }) === 'unavailable', 'tlh -> en');
    await rejects(Translator.create({ sourceLanguage: 'tlh', targetLanguage: 'en' }), isDOMException('NotSupportedError'), 'create tlh -> en');
    await rejects(Translator.availability({ sourceLanguage: 'not a tag', targetLanguage: 'en' }), (e) => e instanceof RangeError, 'a bad tag');
    await rejects(Translator.create({ sourceLanguage: 'de', targetLanguage: '' }), (e) => e instanceof RangeError, 'an empty tag');
    await rejects(Translator.create({ targetLanguage: 'en' }), (e) => e instanceof TypeError, 'no sourceLanguage');
  });

  add('Translator: an aborted signal rejects create(), translate() and measureInputUsage() with its reason', async () => {
    const reason = new Error('stop');
    await rejects(Translator.create({ sourceLanguage: source, targetLanguage: target, signal: AbortSignal.abort(reason) }), (e) => e === reason, 'create');
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target });
    await rejects(translator.translate(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'translate');
    await rejects(translator.measureInputUsage(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'measureInputUsage');
    // Aborted while it runs.
    const controller = new AbortController();
    const running = translator.translate(LONG, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 5);
    await rejects(running, (e) => e === reason, 'translate aborted while running');
    // The translator still works.
    check((await translator.translate(GERMAN)).length > 0, 'translates after an abort');
    translator.destroy();
  });

  add('Translator: create() aborted during its download rejects with the reason', async () => {
    const [s, t] = env.abortPair ?? ['en', 'de'];
    const reason = new Error('stop the download');
    const controller = new AbortController();
    const created = Translator.create({
      sourceLanguage: s, targetLanguage: t, signal: controller.signal,
      monitor(m) { m.addEventListener('downloadprogress', () => controller.abort(reason), { once: true }); },
    });
    await rejects(created, (e) => e === reason, 'create aborted at its first progress event');
  }, { polyfillOnly: true, activates: true });

  add('Translator: destroy() mid-translation rejects it with an AbortError; later calls with the same AbortError', async () => {
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target });
    const running = translator.translate(LONG);
    setTimeout(() => translator.destroy(), 5);
    const reason = await rejects(running, isDOMException('AbortError'), 'the running translation');
    await rejects(translator.translate(GERMAN), (e) => e instanceof DOMException && ['InvalidStateError', 'AbortError'].includes(e.name), 'after destroy');
    if (!own) {
      // The spec's composite signal: every later call rejects with the reason destroy() aborted it with.
      await rejects(translator.translate(GERMAN), (e) => e === reason, 'translate() after destroy');
      await rejects(translator.measureInputUsage(GERMAN), (e) => e === reason, 'measureInputUsage() after destroy');
      let thrown = null;
      try {
        translator.translateStreaming(GERMAN);
      } catch (e) {
        thrown = e;
      }
      check(thrown === reason, `translateStreaming() after destroy throws the reason: ${thrown}`);
    }
  });

  add('Translator: after create()\'s signal aborts, its translator rejects every call with the signal\'s reason', async () => {
    const controller = new AbortController();
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target, signal: controller.signal });
    const reason = new Error('the page is done with it');
    const running = translator.translate(LONG);
    controller.abort(reason);
    await rejects(running, (e) => e === reason, 'the running translation');
    await rejects(translator.translate(GERMAN), (e) => e === reason, 'translate()');
    await rejects(translator.measureInputUsage(GERMAN), (e) => e === reason, 'measureInputUsage()');
    translator.destroy();
    await rejects(translator.translate(GERMAN), (e) => e === reason, 'destroy() afterwards changes nothing');
  }, { polyfillOnly: true });

  add('Translator: white space and control characters alone come back unchanged, from translate() and translateStreaming()', async () => {
    const translator = await Translator.create({ sourceLanguage: source, targetLanguage: target });
    for (const input of [' ', '\n', '\x01', ' \r\n\t\f', '\u00a0\u2003', '\x7f\x1f']) {
      check(await translator.translate(input) === input, `translate(${JSON.stringify(input)})`);
      const chunks = await readAll(translator.translateStreaming(input));
      check(chunks.join('') === input, `translateStreaming(${JSON.stringify(input)}): ${JSON.stringify(chunks)}`);
    }
    const text = await translator.translate('Hallo \x01 Welt');
    check(typeof text === 'string' && text.length > 0, 'text with a control character in it is translated');
    translator.destroy();
  });

  add('Translator: a pair through English is "downloadable", then "available"; its two downloads make one progress ending at exactly 1', async () => {
    const Pivot = env.pivotTranslator ?? Translator;
    const [s, t] = env.pivotPair;
    check(await Pivot.availability({ sourceLanguage: s, targetLanguage: t }) === 'downloadable', `${s} -> ${t} is downloadable before create()`);
    // Two create() calls at once: the second joins the first's download; each has its own progress.
    const events = [[], []];
    let translators;
    const asked = await attachmentRequests(async () => {
      translators = await Promise.all(events.map((e) => Pivot.create({ sourceLanguage: s, targetLanguage: t, monitor: progressRecorder(e) })));
    });
    for (const e of events) {
      // One total: no second run from 0 for the second model (checkProgress: never back).
      checkProgress(e);
      check(e.filter((loaded) => loaded === 1).length === 1, `1 once, at the end (${e.join(', ')})`);
    }
    check(asked.length > 0 && new Set(asked).size === asked.length, `each model file downloaded once: ${asked.join(', ')}`);
    check(await Pivot.availability({ sourceLanguage: s, targetLanguage: t }) === 'available', 'available after create()');
    const [translator, other] = translators;
    check(translator.sourceLanguage === s && translator.targetLanguage === t, `${translator.sourceLanguage} -> ${translator.targetLanguage}`);
    const text = await translator.translate(FRENCH);
    check(typeof text === 'string' && text.length > 0 && text !== FRENCH, `a translation: ${text}`);
    // The translators share an engine: destroying one leaves the other translating, the same.
    translator.destroy();
    check(await other.translate(FRENCH) === text, 'the other translator gives the same translation after the first is destroyed');
    other.destroy();
    const again = await Pivot.create({ sourceLanguage: s, targetLanguage: t });
    check(await again.translate(FRENCH) === text, 'a translator created after both were destroyed translates alike');
    again.destroy();
  }, { polyfillOnly: true, requires: 'pivotPair', activates: true });

  add('Translator: a download that fails rejects create() with NetworkError', async () => {
    const Broken = env.brokenTranslator ?? Translator;
    const [s, t] = env.brokenPair;
    check(await Broken.availability({ sourceLanguage: s, targetLanguage: t }) === 'downloadable', 'the broken arc is downloadable');
    await rejects(Broken.create({ sourceLanguage: s, targetLanguage: t }), isDOMException('NetworkError'), 'create');
  }, { polyfillOnly: true, activates: true });

  add('LanguageDetector: create() with a monitor, detect() by confidence with "und" last', async () => {
    const events = [];
    const detector = await LanguageDetector.create({ monitor: progressRecorder(events) });
    checkProgress(events);
    check(await LanguageDetector.availability() === 'available', 'available after create()');
    const results = await detector.detect(GERMAN);
    check(results[0].detectedLanguage === 'de', `de first: ${JSON.stringify(results)}`);
    check(results.at(-1).detectedLanguage === 'und', '"und" last');
    const sum = results.reduce((s, r) => s + r.confidence, 0);
    check(Math.abs(sum - 1) < 1e-6, `confidences sum to 1 (${sum})`);
    for (let i = 1; i < results.length - 1; ++i) check(results[i - 1].confidence >= results[i].confidence, 'sorted');
    check((await detector.detect(FRENCH))[0].detectedLanguage === 'fr', 'fr');
    detector.destroy();
  }, { activates: true });

  add('LanguageDetector: expectedInputLanguages, NotSupportedError, quota, abort and destroy', async () => {
    const detector = await LanguageDetector.create({ expectedInputLanguages: ['de-CH', 'en'] });
    check(JSON.stringify(detector.expectedInputLanguages) === JSON.stringify(['de', 'en']), `expectedInputLanguages ${detector.expectedInputLanguages}`);
    await rejects(LanguageDetector.create({ expectedInputLanguages: ['tlh-Piqd'] }), isDOMException('NotSupportedError'), 'an undetectable language');
    const reason = new Error('stop');
    await rejects(detector.detect(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'detect aborted');
    await rejects(detector.measureInputUsage(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason, 'measureInputUsage aborted');
    await rejects(LanguageDetector.create({ signal: AbortSignal.abort(reason) }), (e) => e === reason, 'create aborted');
    if (Number.isFinite(detector.inputQuota)) {
      await rejects(detector.detect('a'.repeat(detector.inputQuota + 1)), (e) => e instanceof DOMException && e.name === 'QuotaExceededError', 'over the quota');
    }
    const running = detector.detect(GERMAN);
    detector.destroy();
    const destroyed = await rejects(running, isDOMException('AbortError'), 'destroyed while detecting');
    await rejects(detector.detect(GERMAN), (e) => e instanceof DOMException && ['InvalidStateError', 'AbortError'].includes(e.name), 'after destroy');
    if (!own) {
      await rejects(detector.detect(GERMAN), (e) => e === destroyed, 'detect() after destroy: the reason destroy() gave');
      await rejects(detector.measureInputUsage(GERMAN), (e) => e === destroyed, 'measureInputUsage() after destroy');
    }
  });

  return list;
}

/** Runs one case of cases(): {name, ok, skipped?, error?}. */
export async function runCase(c) {
  if (c.skip) return { name: c.name, ok: true, skipped: c.skip };
  try {
    await c.run();
    return { name: c.name, ok: true };
  } catch (e) {
    return { name: c.name, ok: false, error: `${e?.name}: ${e?.message}\n${e?.stack ?? ''}` };
  }
}

/** Runs the cases in order: [{name, ok, skipped?, error?}]. */
export async function runCases(env) {
  const out = [];
  for (const c of cases(env)) out.push(await runCase(c));
  return out;
}
