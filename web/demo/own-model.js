// "Use your own model": pick or drop the files of a Firefox Translations or OPUS-MT model folder
// (as downloaded: model .bin or .npz, vocabularies, decoder.yml, lex.*.s2t.bin; .gz copies too),
// and the page translates with it. The package imports the folder in its Worker
// (Translator.create({model: {files}})); this module only gathers the files, hands them to the
// page's model loader and describes what was imported: the model's name and shape, and what the
// importer ignored, did not know or refused (a refusal is the load's error, shown by the page).
// Nothing leaves the browser: the files are read locally.

// Where a folder names its languages: Firefox Translations' file names (model.deen.intgemm...),
// a folder named for its pair (opus-mt-de-en, de-en, de_en), OPUS-MT's README.md ("source
// language(s): de").
const DIRECTION = /^(?:model|vocab|srcvocab|trgvocab|lex(?:\.\d+)*)\.([a-z]{2})([a-z]{2})\b/;
const FOLDER_PAIR = /(?:^|[^a-z])([a-z]{2,3})[-_]([a-z]{2,3})$/;
const README_LANGUAGE = (side) => new RegExp(`${side} languages?(?:\\(s\\))?:\\s*([a-z]{2,3})\\b`, 'i');
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** A language code the page can name (BCP 47, canonical), or null. */
function languageCode(code) {
  if (typeof code !== 'string' || !/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/i.test(code.trim())) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(code.trim());
    return canonical && canonical !== 'und' ? canonical : null;
  } catch {
    return null;
  }
}

/**
 * The language pair a model folder's files name, or null: {from, to, how}. `files`: File objects
 * (a folder pick gives each its webkitRelativePath).
 */
export async function languagePairOf(files) {
  for (const f of files) {
    const m = DIRECTION.exec(f.name);
    if (m && languageCode(m[1]) && languageCode(m[2])) return { from: m[1], to: m[2], how: `the file name ${f.name}` };
  }
  for (const f of files) {
    const folders = (f.webkitRelativePath ?? '').split('/').slice(0, -1).reverse();
    for (const folder of folders) {
      const m = FOLDER_PAIR.exec(folder.toLowerCase());
      if (m && languageCode(m[1]) && languageCode(m[2])) return { from: m[1], to: m[2], how: `the folder name ${folder}` };
    }
  }
  const readme = files.find((f) => /^readme(\.md|\.txt)?$/i.test(f.name) && f.size < 1e6);
  if (readme) {
    const text = await readme.text();
    const from = README_LANGUAGE('source').exec(text)?.[1], to = README_LANGUAGE('target').exec(text)?.[1];
    if (languageCode(from) && languageCode(to)) return { from: from.toLowerCase(), to: to.toLowerCase(), how: readme.name };
  }
  return null;
}

const nameOf = (code) => {
  try {
    return languageNames.of(code);
  } catch {
    return code;
  }
};

/**
 * @param {HTMLDetailsElement} root  the page's <details id="own-model"> (its <summary> is kept)
 * @param {{load: (entry: object) => Promise<boolean>, info: () => object|null, labelPanes: (from: string, to: string) => void}} page
 *   load: the page's model loader, given an entry whose `folder` is Translator.create's model,
 *   resolving to whether it loaded (the model in use stays when it did not); info: the loaded
 *   translator's info; labelPanes: names the text boxes' languages
 */
export function setupOwnModel(root, page) {
  const el = (tag, props = {}, ...children) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...children);
    return e;
  };
  const files = el('input', { type: 'file', multiple: true, id: 'own-files' });
  const folder = el('input', { type: 'file', multiple: true, id: 'own-folder' });
  folder.webkitdirectory = true;
  const drop = el('div', { className: 'own-drop', id: 'own-drop', tabIndex: 0,
    textContent: 'or drop the model folder (or its files) here' });
  const status = el('p', { className: 'meta', id: 'own-status' });
  // The languages, as found in the files or set here (a model file does not name them).
  const fromInput = el('input', { id: 'own-from', size: 6, placeholder: 'e.g. de', autocomplete: 'off', spellcheck: false });
  const toInput = el('input', { id: 'own-to', size: 6, placeholder: 'e.g. en', autocomplete: 'off', spellcheck: false });
  const languages = el('p', { className: 'own-languages', id: 'own-languages', hidden: true },
    el('label', { htmlFor: 'own-from', textContent: 'Source language: ' }), fromInput, ' ',
    el('label', { htmlFor: 'own-to', textContent: 'Target language: ' }), toInput, ' ',
    el('span', { className: 'meta', id: 'own-languages-note' }));
  let loaded = null;  // the entry of the own model in use
  const details = el('div', { className: 'card', id: 'own-details', hidden: true });
  root.append(
    el('p', { className: 'meta', textContent: 'A Firefox Translations model (model.*.bin or model.*.intgemm.alphas.bin, vocab.*.spm, ' +
      'lex.*.s2t.bin; .gz copies are fine) or an OPUS-MT model (the unzipped folder: *.npz, decoder.yml, *.vocab.yml, ' +
      'source.spm, target.spm). The files are read here and converted in the page: nothing is uploaded.' }),
    el('p', { className: 'own-pickers' },
      el('label', { htmlFor: 'own-files', textContent: 'Files: ' }), files, ' ',
      el('label', { htmlFor: 'own-folder', textContent: 'Folder: ' }), folder),
    drop, status, languages, details);

  async function use(list, how) {
    if (!list.length) return;
    details.hidden = true;
    languages.hidden = true;
    loaded = null;
    const names = list.map((f) => f.name);
    status.textContent = `importing ${list.length} file${list.length > 1 ? 's' : ''} (${how}): ${names.join(', ')}`;
    const pair = await languagePairOf(list);
    const modelFile = names.find((n) => /\.(bin|npz)(\.gz)?$/.test(n) && !/^lex\./.test(n)) ?? names[0];
    const entry = { id: modelFile.replace(/\.gz$/, ''), from: pair?.from ?? 'und', to: pair?.to ?? 'und', own: true,
      folder: { files: list }, bytes: list.reduce((n, f) => n + f.size, 0) };
    const info = (await page.load(entry)) ? page.info() : null;
    if (!info?.model.marian) {
      status.textContent = 'the model could not be used: see the message above';
      return;
    }
    loaded = entry;
    // The registry's notes are about the shipped models, not this one; its reverse direction
    // (swap) is unknown.
    for (const id of ['domain-note', 'test-model-note', 'examples']) document.getElementById(id).hidden = true;
    document.getElementById('swap').disabled = true;
    fromInput.value = pair?.from ?? '';
    toInput.value = pair?.to ?? '';
    document.getElementById('own-languages-note').textContent = pair ? `(from ${pair.how})` : '(the files do not name them)';
    languages.hidden = false;
    describeControls(info);
    describe(info);
  }

  // The page's controls say what is loaded: the direction, the weights, the status line.
  function describeControls(info) {
    const { from, to } = loaded;
    const known = (code) => code !== 'und';
    const pairText = known(from) && known(to) ? `${nameOf(from)} \u2192 ${nameOf(to)}` : 'languages not set';
    const direction = document.getElementById('direction');
    direction.querySelector('option[value="own"]')?.remove();
    direction.append(new Option(`Your model: ${loaded.id} (${pairText})`, 'own'));
    direction.value = 'own';
    const weights = document.getElementById('weights');
    const s = info.model.marian.summary;
    weights.replaceChildren(new Option(`${s.weights}, ${(loaded.bytes / 1048576).toFixed(1)} MiB of files`, 'own'));
    weights.disabled = true;
    weights.title = `imported from ${info.model.marian.modelFile}`;
    status.textContent = `translating with the model from your files: ${info.model.marian.modelFile}, ${pairText}` +
      (s.name && !info.model.marian.modelFile.startsWith(s.name) ? ` (${s.name})` : '');
    page.labelPanes(from, to);
  }

  // Languages set by hand (or corrected): the labels and controls follow.
  function setLanguages() {
    if (!loaded) return;
    const from = languageCode(fromInput.value), to = languageCode(toInput.value);
    fromInput.setCustomValidity(fromInput.value && !from ? 'not a language code' : '');
    toInput.setCustomValidity(toInput.value && !to ? 'not a language code' : '');
    loaded.from = from ?? 'und';
    loaded.to = to ?? 'und';
    document.getElementById('own-languages-note').textContent = from && to ? '(set here)' : '(the files do not name them)';
    describeControls(page.info());
  }
  fromInput.addEventListener('change', setLanguages);
  toInput.addEventListener('change', setLanguages);

  function describe(info) {
    const s = info.model.marian.summary;
    const c = s.config ?? {};
    const row = (label, value) => el('tr', {}, el('th', { textContent: label }), el('td', { textContent: value }));
    const list = (xs) => (xs?.length ? xs.join(', ') : 'none');
    // With a shortlist the engine scores, for each sentence, only the target words it lists.
    const shortlist = s.shortlist ? `${s.shortlist.file} (${s.shortlist.first} frequent + ${s.shortlist.best} per source word): used` : 'none';
    details.replaceChildren(el('table', { className: 'own-summary' },
      row('name', s.name),
      row('model file', `${s.model} (${list(s.item_types)})`),
      row('architecture', s.variant),
      row('shape', `d_model ${c.d_model}, ${c.encoder_layers} encoder + ${c.decoder_layers} decoder layers, ` +
        `${c.heads} heads, feed-forward ${c.ffn_dim}`),
      row('vocabularies', `${list(s.vocabs)} (${(s.vocab_sizes ?? []).join(' / ')} pieces; ${s.tokenizer})`),
      row('weights', `${s.weights}${s.quantized_matrices ? `, ${s.quantized_matrices} int8 matrices` : ''}` +
        `${s.alphas ? `, ${s.alphas} activation multipliers kept` : ''}`),
      row('parameters', String(info.model.parameters)),
      row('options ignored', list(s.ignored_options)),
      row('options not known', list(s.unknown_options)),
      row('warnings', list(s.warnings)),
      row('lexical shortlist', shortlist),
      row('files', info.model.files.map((f) => `${f.name}${f.gzip ? ' (gz)' : ''}`).join(', '))));
    details.hidden = false;
  }

  files.addEventListener('change', () => use([...files.files], 'picked'));
  folder.addEventListener('change', () => use([...folder.files], 'folder'));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    try {
      use(await droppedFiles(e.dataTransfer), 'dropped');
    } catch (error) {
      status.textContent = `the dropped files could not be read: ${error.message}`;
    }
  });
}

// The files of a drop: a dropped folder is read through its entries (one level down and deeper;
// the importer goes by file names, so the folder structure does not matter).
async function droppedFiles(transfer) {
  const entries = [...transfer.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...transfer.files];
  const out = [];
  const walk = async (entry) => {
    if (entry.isFile) {
      out.push(await new Promise((resolve, reject) => entry.file(resolve, reject)));
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child);
      }
    }
  };
  for (const entry of entries) await walk(entry);
  return out;
}
