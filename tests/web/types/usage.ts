// Type-checked against web/types/index.d.ts (tests/web/types.test.mjs runs tsc --noEmit): the
// README's uses of the API must compile, and misuses must not (the @ts-expect-error lines).
import {
  Translator, loadRegistry, findModels, withVariant, ModelLoadError, ModelFormatError, ModelTooLargeError, InvalidTextError,
  TranslationError, SupersededError, TranslatorDisposedError, chunksOf, CHUNK_CHARS, paragraphAlignment, decideBackend, AUTO_MIN_PROJECTION,
  FIREFOX_CATALOG,
  type Translation, type GlossaryEntry, type ModelVariant, type TranslatorInfo, type ProgressEvent, type FallbackEvent,
} from 'tformer-wasm';

export async function example(): Promise<string> {
  const registry = await loadRegistry('registry.json');
  const [entry] = findModels(registry, { from: 'de', to: 'en' });
  const t = await Translator.create({
    model: entry,
    threads: 2,
    backend: 'auto',
    cache: true,
    onProgress: (e: ProgressEvent) => {
      if (e.phase === 'download') console.log(e.loaded / (e.total || 1));
    },
    onFallback: (e: FallbackEvent) => console.warn(`${e.from} -> ${e.to}: ${e.message}`),
  });
  const backend: 'wasm' | 'webgpu' = t.info.backend;
  const why: string = t.info.backendReason;
  const adapter: string | null = t.info.adapter;
  const gpuBytes: number = t.info.memory.gpuWeightBytes;
  const rule = decideBackend({ requested: 'auto', node: false, adapter: null, config: { d_model: 512, vocab_size: 32000 } });
  console.log(backend, why, adapter, gpuBytes, rule.backend, AUTO_MIN_PROJECTION);
  const info: TranslatorInfo = t.info;
  const variant: 'relaxed' | 'threaded' | 'single' = info.variant;
  const kernels: string = info.kernels;
  const kernelsByTheOldName: string = info.engine;  // deprecated alias of kernels
  console.log(kernels, kernelsByTheOldName);
  const one: Translation = await t.translate('Hallo Welt.', { beam: 4, alignment: true, signal: new AbortController().signal });
  const many: Translation[] = await t.translate(['a', 'b']);
  const page: string = (await t.translate('<p>Hallo <b>Welt</b></p>', { html: true, htmlTranslateCode: false })).text;
  // Word confidence: a score per sentence, and each word's place in the sentence's text.
  for (const s of (await t.translate('Hallo Welt.', { confidence: true })).sentences) {
    const score: number | undefined = s.confidence?.score;
    for (const w of s.confidence?.words ?? []) console.log(score, s.text.slice(w.start, w.end) === w.text, w.confidence);
  }
  let streamed = '';
  for await (const s of t.translateStream(['Erster Satz. Zweiter Satz.', 'b'], { signal: new AbortController().signal })) {
    const where: [number, number] = [s.paragraph, s.index];
    streamed += s.separator + s.text;
    console.log(where, s.tokens.length);
  }
  // A text box: each pause's request supersedes the one before; chunks for a progress bar.
  try {
    const typed: Translation = await t.translate('Hallo Welt.', { key: 'source', supersede: true });
    const total: number = chunksOf('Hallo Welt.', 'de').reduce((n, c) => n + c.sentences, 0);
    console.log(typed.text, total, CHUNK_CHARS);
  } catch (e) {
    if (e instanceof SupersededError) console.log(e.key);
  }
  const collected = [];
  for await (const s of t.translateStream('Hallo Welt.', { alignment: true, key: 'source' })) collected.push(s);
  const drawn: Float32Array = paragraphAlignment(collected).weights;
  console.log(drawn.length);
  // Glossaries: per request, or for every request of a translator.
  const terms: GlossaryEntry[] = [{ source: 'Haus', target: 'building' }, { source: 'tformer' }, { source: 'berlin', caseSensitive: false }];
  const termed: string = (await t.translate('Das Haus.', { glossary: terms })).text;
  const withTerms = await Translator.create({ model: 'models/tiny.deen/model.tfm', glossary: terms });
  console.log(termed, withTerms.info.variant);
  // @ts-expect-error: a term has a source
  await t.translate('x', { glossary: [{ target: 'y' }] });
  // @ts-expect-error: the glossary is a list of terms, not a map
  await t.translate('x', { glossary: { Haus: 'building' } });
  // @ts-expect-error: supersede says whether, the key says which
  await t.translate('x', { supersede: 'source' });
  // @ts-expect-error: a stream is iterated, not awaited as a Translation
  const notOne: Translation = await t.translateStream('x');
  console.log(streamed, notOne);
  const weights: Float32Array | undefined = one.alignment?.weights;
  const pieces: string[] = one.sentences[0].targetPieces;
  const ms: number = one.timings.translateMs;
  const readbacks: number | undefined = one.timings.gpu?.readbacks;
  console.log(one.timings.backend, readbacks);
  const sizes: string[] = (entry.variants ?? []).map((v: ModelVariant) => `${v.weights}${v.default ? ' (default)' : ''}: ${v.size}`);
  const full = await Translator.create({ model: withVariant(entry, 'f16') });
  full.dispose();
  try {
    await t.translate('a\uD800');
  } catch (e) {
    if (e instanceof InvalidTextError) console.log(e.input, e.position);
    if (e instanceof TranslationError && e.code === 'text_too_long') console.log(e.input ?? 'the request');
    if (e instanceof TranslatorDisposedError) console.log(e.name);
  }
  t.dispose();
  try {
    await Translator.create({ model: new Uint8Array(8), sha256: 'x' });
  } catch (e) {
    if (e instanceof ModelTooLargeError) return `${e.model}: more than ${e.limit} bytes`;
    if (e instanceof ModelFormatError) return `${e.model}: ${e.message}`;
    if (e instanceof ModelLoadError) return e.message;
  }
  console.log(sizes);
  // A Firefox Translations folder as downloaded: URLs (one with its sha256), a File, {name, data}.
  const picked: File[] = [];
  const marian = await Translator.create({
    model: {
      files: ['https://example.org/deen/model.deen.intgemm.alphas.bin.gz', { url: 'https://example.org/deen/vocab.deen.spm.gz', sha256: 'ab' },
        ...picked, { name: 'lex.50.50.deen.s2t.bin', data: new ArrayBuffer(8) }],
      modelFile: 'model.deen.intgemm.alphas.bin',
      weights: 'keep',
    },
  });
  const imported: string | undefined = marian.info.model.marian?.modelFile;
  const gz: boolean[] = (marian.info.model.files ?? []).map((f) => f.gzip);
  console.log(imported, gz);
  // @ts-expect-error: files are named (bytes alone have no name)
  await Translator.create({ model: { files: [new Uint8Array(8)] } });
  // @ts-expect-error: no such weights
  await Translator.create({ model: { files: ['m.bin'], weights: 'f8' } });
  // @ts-expect-error: the model is required
  await Translator.create({ threads: 2 });
  // @ts-expect-error: no such backend
  await Translator.create({ model: 'm.tfm', backend: 'cuda' });
  // @ts-expect-error: onFallback is a function
  await Translator.create({ model: 'm.tfm', onFallback: true });
  // @ts-expect-error: beam is a number
  await t.translate('x', { beam: '4' });
  // @ts-expect-error: unknown option
  await t.translate('x', { beamSize: 4 });
  // @ts-expect-error: html is true or false
  await t.translate('x', { html: 'yes' });
  // @ts-expect-error: confidence is true or false
  await t.translate('x', { confidence: 'yes' });
  // A pair of Firefox's model catalogue, through English where needed.
  const pairs = await Translator.pairs({ channel: 'release' });
  const pair = await Translator.create({ from: pairs[0].from, to: 'de', catalog: FIREFOX_CATALOG, architecture: 'tiny' });
  const route = pair.info.model.catalog?.steps.map((s) => `${s.from}->${s.to}`).join(', ');
  // @ts-expect-error: a pair needs both languages
  await Translator.create({ from: 'fr' });
  // @ts-expect-error: no such channel
  await Translator.create({ from: 'fr', to: 'de', channel: 'aurora' });
  // @ts-expect-error: a catalogue pair brings its own hashes
  await Translator.create({ from: 'fr', to: 'de', sha256: 'ab' });
  console.log(route);
  return `${variant} ${many.length} ${weights?.length} ${pieces.length} ${ms}`;
}

// The web's LanguageDetector from the package, detectLanguage's detail, and the polyfill.
import { LanguageDetector, detectLanguage, type LanguageDetectionResult } from 'tformer-wasm';
import { install } from 'tformer-wasm/polyfill';

export async function detection(text: string): Promise<string> {
  const detector = await LanguageDetector.create({ expectedInputLanguages: ['de'], monitor: (m) => m.addEventListener('downloadprogress', (e) => console.log(e.loaded)) });
  const results: LanguageDetectionResult[] = await detector.detect(text, { signal: new AbortController().signal });
  const detail = await detectLanguage(text);
  const spans: string[] = detail.spans.map((s) => `${text.slice(s.start, s.end)}: ${s.language}`);
  // @ts-expect-error detect() takes a string
  await detector.detect(42);
  detector.destroy();
  const { Translator: T, installed } = install({ catalog: 'https://catalogue.example/v1', cache: 'my-models', channel: 'nightly', force: false });
  install({ catalog: '/registry.json' });
  install({ catalog: null });
  // @ts-expect-error a channel Firefox does not have
  install({ channel: 'aurora' });
  const t = await T.create({ sourceLanguage: 'de', targetLanguage: 'en', monitor: (m) => { m.ondownloadprogress = (e) => console.log(e.loaded); } });
  const chunks: ReadableStream<string> = t.translateStreaming(text);
  // @ts-expect-error targetLanguage is required
  await T.create({ sourceLanguage: 'de' });
  return `${results[0].detectedLanguage} ${spans.join()} ${installed.join()} ${await t.translate(text)} ${chunks.locked}`;
}

// The translation memory and the page helper.
import { translatePage, PAGE_VIEWS, DEFAULT_MEMORY_DATABASE, type PageView, type PageProgress, type MemoryStats } from 'tformer-wasm';

export async function memoryAndPage(root: Element): Promise<number> {
  const t = await Translator.create({ model: 'model.tfm', memory: { persist: true, maxEntries: 5000, maxBytes: 8 << 20 } });
  const again = await Translator.create({ model: 'model.tfm', memory: true });
  const hits: number = (await t.translate('Hallo.')).timings.memoryHits;
  const stats: MemoryStats | undefined = await t.memory?.stats();
  await t.memory?.clear();
  const page = translatePage(root, { translator: t, view: 'beside', hover: false, translateOptions: { repetitionGuard: true } });
  page.setView('below');
  const view: PageView = page.view;
  const done: PageProgress = await page.done;
  page.restore();
  // @ts-expect-error: not a view
  page.setView('side-by-side');
  // @ts-expect-error: html is the helper's
  translatePage(root, { translator: again, translateOptions: { html: false } });
  // @ts-expect-error: persist is a boolean or a database name
  await Translator.create({ model: 'model.tfm', memory: { persist: 1 } });
  console.log(stats?.database, DEFAULT_MEMORY_DATABASE, PAGE_VIEWS, view);
  return hits + done.memoryHits;
}
