// The package's LanguageDetector as the web's Translator and Language Detector APIs specify it
// (webmachinelearning/translation-api; CreateMonitor, Availability, DestroyableModel from
// writing-assistance-apis), in Node: availability before and after the download, create() with
// expected languages, monitor and signal, detect() and its result list, measureInputUsage and
// inputQuota, destroy(), and each DOMException the spec names. Expected languages come from
// FLORES-200's own labels (sentences written here), not from the detector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { importPackage, nativeCli } from './helpers.mjs';

const { LanguageDetector, detectLanguage, detectableLanguages } = await importPackage();
const { DETECTABLE_LANGUAGES } = await import('../../web/src/detectable-languages.js');

// FLORES-200 dev, sentence 3 (deu_Latn, fra_Latn, jpn_Jpan).
const GERMAN = 'Der JAS 39C Gripen stürzte gegen 9:30 Uhr Ortszeit (02:30 UTC) auf eine Startbahn und explodierte, sodass der Flughafen für kommerzielle Flüge geschlossen werden musste.';
const FRENCH = 'Le JAS 39C Gripen s’est écrasé sur une piste autour de 9 h 30 heure locale (0230 UTC) et a explosé, provoquant la fermeture de l’aéroport aux vols commerciaux.';
const JAPANESE = 'JAS 39Cグリペンは現地時間の午前9時30分頃（UTC 0230）に滑走路に墜落して爆発し、その影響で空港の商業便が閉鎖されました。';

async function rejectsWith(promise, name) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof DOMException, `a DOMException, got ${e}`);
    assert.equal(e.name, name);
    return true;
  });
}

// This test runs first: nothing is loaded yet in this process.
test('availability moves from "downloadable" to "available" once create() has loaded the detector; progress reaches exactly 1', async () => {
  assert.equal(await LanguageDetector.availability(), 'downloadable');
  assert.equal(await LanguageDetector.availability({ expectedInputLanguages: ['de', 'en-GB'] }), 'downloadable');
  const progress = [];
  const detector = await LanguageDetector.create({
    monitor(m) {
      m.addEventListener('downloadprogress', (e) => progress.push({ loaded: e.loaded, total: e.total, lengthComputable: e.lengthComputable }));
    },
  });
  assert.ok(progress.length >= 2, `events: ${JSON.stringify(progress)}`);
  assert.equal(progress[0].loaded, 0);
  assert.equal(progress.at(-1).loaded, 1);
  for (let i = 1; i < progress.length; ++i) assert.ok(progress[i].loaded > progress[i - 1].loaded, 'increasing');
  for (const p of progress) {
    assert.equal(p.total, 1);
    assert.equal(p.lengthComputable, true);
    assert.equal(p.loaded * 65536, Math.floor(p.loaded * 65536), 'a multiple of 1/65536');
  }
  assert.equal(await LanguageDetector.availability(), 'available');
  detector.destroy();
});

test('an available detector still reports progress 0 then 1 to a monitor, and ondownloadprogress works', async () => {
  const seen = [];
  const detector = await LanguageDetector.create({ monitor(m) { m.ondownloadprogress = (e) => seen.push(e.loaded); } });
  assert.deepEqual(seen, [0, 1]);
  detector.destroy();
});

test('detect(): the language FLORES states, by confidence, summing to 1, "und" last', async () => {
  const detector = await LanguageDetector.create();
  for (const [text, language] of [[GERMAN, 'de'], [FRENCH, 'fr'], [JAPANESE, 'ja']]) {
    const results = await detector.detect(text);
    assert.equal(results[0].detectedLanguage, language);
    assert.equal(results.at(-1).detectedLanguage, 'und');
    const sum = results.reduce((s, r) => s + r.confidence, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9, `sum ${sum}`);
    for (let i = 1; i < results.length - 1; ++i) assert.ok(results[i - 1].confidence >= results[i].confidence);
    // The list stops once the languages before "und" reach 0.99.
    const before = results.slice(0, -1).reduce((s, r) => s + r.confidence, 0);
    assert.ok(results.length === 2 || before - results.at(-2).confidence < 0.99);
  }
  assert.deepEqual(await detector.detect(''), [{ detectedLanguage: 'und', confidence: 1 }]);
  assert.deepEqual(await detector.detect('12345 67'), [{ detectedLanguage: 'und', confidence: 1 }]);
  detector.destroy();
});

test('mixed-language input: both languages, each with about its share of the text', async () => {
  const detector = await LanguageDetector.create();
  const german = 'Am Montag haben die Wissenschaftler der Stanford University School of Medicine die Erfindung eines neuen Diagnosetools bekanntgegeben, mit dem Zellen nach ihrem Typ sortiert werden können: ein winziger, ausdruckbarer Chip, der für jeweils etwa einen US-Cent mit Standard-Tintenstrahldruckern hergestellt werden kann.';
  const english = 'On Monday, scientists from the Stanford University School of Medicine announced the invention of a new diagnostic tool that can sort cells by type: a tiny printable chip that can be manufactured using standard inkjet printers for possibly about one U.S. cent each.';
  const results = await detector.detect(`${german} ${english}`);
  const languages = results.map((r) => r.detectedLanguage);
  assert.ok(languages.includes('de') && languages.includes('en'), JSON.stringify(results));
  for (const r of results.filter((x) => x.detectedLanguage !== 'und')) assert.ok(r.confidence > 0.3 && r.confidence < 0.7, JSON.stringify(results));
  // The detail API gives the spans: the German half is German, the English half English.
  const detail = await detectLanguage(`${german} ${english}`);
  const at = (i) => detail.spans.find((s) => s.start <= i && i < s.end)?.language;
  assert.equal(at(german.length / 2), 'de');
  assert.equal(at(german.length + 1 + english.length / 2), 'en');
  detector.destroy();
});

test('detectLanguage(): reliability, and Firefox\'s 200 characters for confidence', async () => {
  const sentence = await detectLanguage(GERMAN);
  assert.equal(sentence.reliable, true);
  assert.equal(sentence.confident, false);  // 167 characters
  const paragraph = await detectLanguage(`${GERMAN} ${GERMAN.replace('Gripen', 'Jet')}`);
  assert.equal(paragraph.confident, true);
  assert.equal(paragraph.languages[0].language, 'de');
  assert.ok(paragraph.languages[0].score > 0);
});

test('expectedInputLanguages: canonicalized to their best fit, frozen; null without; unsupported ones are NotSupportedError', async () => {
  const detector = await LanguageDetector.create({ expectedInputLanguages: ['de-CH', 'EN-gb', 'en-GB', 'iw'] });
  assert.deepEqual(detector.expectedInputLanguages, ['de', 'en', 'he']);
  assert.ok(Object.isFrozen(detector.expectedInputLanguages));
  detector.destroy();
  assert.equal((await LanguageDetector.create()).expectedInputLanguages, null);
  assert.equal(await LanguageDetector.availability({ expectedInputLanguages: ['tlh-Piqd'] }), 'unavailable');
  await rejectsWith(LanguageDetector.create({ expectedInputLanguages: ['de', 'tlh-Piqd'] }), 'NotSupportedError');
  // A tag that is not BCP 47: a RangeError, as Intl throws.
  await assert.rejects(LanguageDetector.create({ expectedInputLanguages: ['not a tag'] }), RangeError);
  await assert.rejects(LanguageDetector.availability({ expectedInputLanguages: ['x'] }), RangeError);
  await assert.rejects(LanguageDetector.create({ expectedInputLanguages: 'de' }), TypeError);
});

test('AbortSignal: create(), detect() and measureInputUsage() reject with the signal\'s reason', async () => {
  const reason = new Error('stop');
  await assert.rejects(LanguageDetector.create({ signal: AbortSignal.abort(reason) }), (e) => e === reason);
  const detector = await LanguageDetector.create();
  await assert.rejects(detector.detect(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await assert.rejects(detector.measureInputUsage(GERMAN, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  // Aborted after the call, before its result: the reason wins.
  const controller = new AbortController();
  const pending = detector.detect(GERMAN, { signal: controller.signal });
  controller.abort(reason);
  await assert.rejects(pending, (e) => e === reason);
  // The default reason is an AbortError DOMException.
  await rejectsWith(detector.detect(GERMAN, { signal: AbortSignal.abort() }), 'AbortError');
  // Aborting create()'s signal later destroys the detector.
  const later = new AbortController();
  const owned = await LanguageDetector.create({ signal: later.signal });
  later.abort(reason);
  // The spec's composite signal: later calls reject with what the signal was aborted with.
  await assert.rejects(owned.detect(GERMAN), (e) => e === reason);
  await assert.rejects(owned.measureInputUsage(GERMAN), (e) => e === reason);
  await assert.rejects(detector.detect(GERMAN, { signal: 'no' }), TypeError);
  detector.destroy();
});

test('measureInputUsage and inputQuota: finite, the input\'s length; over it, QuotaExceededError with requested and quota', async () => {
  const detector = await LanguageDetector.create();
  assert.ok(Number.isFinite(detector.inputQuota) && detector.inputQuota > 0);
  assert.equal(await detector.measureInputUsage(GERMAN), GERMAN.length);
  assert.equal(await detector.measureInputUsage(''), 0);
  const over = 'a'.repeat(detector.inputQuota + 1);
  assert.equal(await detector.measureInputUsage(over), detector.inputQuota + 1);
  await assert.rejects(detector.detect(over), (e) => {
    assert.ok(e instanceof DOMException);
    assert.equal(e.name, 'QuotaExceededError');
    assert.equal(e.requested, detector.inputQuota + 1);
    assert.equal(e.quota, detector.inputQuota);
    return true;
  });
  // At the quota: detected.
  assert.equal((await detector.detect(GERMAN.repeat(Math.floor(detector.inputQuota / GERMAN.length))))[0].detectedLanguage, 'de');
  detector.destroy();
});

test('destroy(): a running call rejects with an AbortError, later calls with the same AbortError', async () => {
  const detector = await LanguageDetector.create();
  const running = detector.detect(GERMAN);
  detector.destroy();
  await rejectsWith(running, 'AbortError');
  const reason = await running.catch((e) => e);
  await assert.rejects(detector.detect(GERMAN), (e) => e === reason);
  await assert.rejects(detector.measureInputUsage(GERMAN), (e) => e === reason);
  detector.destroy();  // twice: nothing more
  await assert.rejects(detector.detect(GERMAN), (e) => e === reason);
});

test('hostile input: lone surrogates, NULs, markup, non-strings: an answer or a TypeError, never a crash', async () => {
  const detector = await LanguageDetector.create();
  assert.equal((await detector.detect(`${GERMAN}\uD800`))[0].detectedLanguage, 'de');
  assert.equal((await detector.detect('\uDC00\uD800')).at(-1).detectedLanguage, 'und');
  await detector.detect('\0'.repeat(1000));
  await detector.detect('<script>alert(1)</script>');
  assert.equal((await detector.detect({ toString: () => GERMAN }))[0].detectedLanguage, 'de');
  await assert.rejects(detector.detect(), TypeError);
  await assert.rejects(detector.detect(Symbol('x')), TypeError);
  await assert.rejects(LanguageDetector.create(null), TypeError);
  await assert.rejects(LanguageDetector.create({ monitor: 1 }), TypeError);
  await assert.rejects(LanguageDetector.create({ monitor() { throw new Error('monitor failed'); } }), /monitor failed/);
  detector.destroy();
});

test('the detectable languages: the engine\'s list, each a canonical BCP 47 tag', async () => {
  const engine = await detectableLanguages();
  assert.deepEqual(engine, [...DETECTABLE_LANGUAGES]);
  for (const tag of engine) assert.equal(Intl.getCanonicalLocales(tag)[0], tag);
  for (const tag of ['de', 'en', 'he', 'zh-Hant', 'fil']) assert.ok(engine.includes(tag), tag);
});

test('the CLI and the package detect alike', async () => {
  assert.ok(existsSync(nativeCli), `no native CLI at ${nativeCli} (cmake --build build)`);
  const texts = [GERMAN, FRENCH, JAPANESE, '', 'Hallo', `${GERMAN} ${FRENCH}`];
  const lines = execFileSync(nativeCli, ['detect', '--all'], { input: `${texts.join('\n')}\n`, encoding: 'utf8' }).trimEnd().split('\n');
  const detector = await LanguageDetector.create();
  for (const [i, text] of texts.entries()) {
    const fields = lines[i].split('\t');
    const cli = [];
    for (let f = 0; f < fields.length; f += 2) cli.push({ detectedLanguage: fields[f], confidence: Number(fields[f + 1]) });
    const wasm = await detector.detect(text);
    assert.deepEqual(cli.map((r) => r.detectedLanguage), wasm.map((r) => r.detectedLanguage), text);
    cli.forEach((r, k) => assert.ok(Math.abs(r.confidence - wasm[k].confidence) < 1e-5, text));
  }
  detector.destroy();
});

test('tformer detect: one line per input line, the labelled language first; bad lines skipped or stopping the run', async () => {
  assert.ok(existsSync(nativeCli), `no native CLI at ${nativeCli} (cmake --build build)`);
  const { spawnSync } = await import('node:child_process');
  const run = (args, input) => spawnSync(nativeCli, ['detect', ...args], { input, encoding: 'latin1' });
  const good = run([], Buffer.from(`${GERMAN}\n${FRENCH}\n\n${JAPANESE}`));  // the last line without "\n"
  assert.equal(good.status, 0, good.stderr);
  const lines = Buffer.from(good.stdout, 'latin1').toString('utf8').split('\n');
  assert.deepEqual(lines.map((l) => l.split('\t')[0]), ['de', 'fr', 'und', 'ja', '']);
  for (const l of lines.slice(0, 4)) assert.match(l, /^[a-zA-Z-]+\t(0|1|0\.\d+)$/);
  // Not UTF-8 (a lone 0xC3), and a line over --max-chars: empty output lines, messages, status 1.
  const input = Buffer.concat([Buffer.from(`${GERMAN}\nab`), Buffer.from([0xC3]), Buffer.from(`\n${'x'.repeat(250)}\n${FRENCH}\n`)]);
  const skipped = run(['--max-chars', '200'], input);
  assert.equal(skipped.status, 1);
  assert.deepEqual(skipped.stdout.split('\n').map((l) => l.split('\t')[0]), ['de', '', '', 'fr', '']);
  assert.match(skipped.stderr, /line 2 is not valid UTF-8/);
  assert.match(skipped.stderr, /line 3 has 250 characters, more than the limit of 200/);
  const stopped = run(['--on-error', 'stop'], input);
  assert.equal(stopped.status, 1);
  assert.equal(stopped.stdout.split('\n')[0].split('\t')[0], 'de');
  assert.equal(stopped.stdout.split('\n').length, 2, 'only the line before the bad one');
  // Usage errors: status 2.
  assert.equal(run(['-m', 'x'], '').status, 2);
  assert.equal(spawnSync(nativeCli, ['translate', '--all'], { input: '' }).status, 2);
});
