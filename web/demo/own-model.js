// "Use your own model": pick or drop the files of a Firefox Translations or OPUS-MT model folder
// (as downloaded: model .bin or .npz, vocabularies, decoder.yml, lex.*.s2t.bin; .gz copies too),
// and the page translates with it. The package imports the folder in its Worker
// (Translator.create({model: {files}})); this module only gathers the files, hands them to the
// page's model loader and describes what was imported: the model's name and shape, and what the
// importer ignored, did not know or refused (a refusal is the load's error, shown by the page).
// Nothing leaves the browser: the files are read locally.

const DIRECTION = /^(?:model|vocab|srcvocab|trgvocab|lex(?:\.\d+)*)\.([a-z]{2})([a-z]{2})\b/;

/**
 * @param {HTMLDetailsElement} root  the page's <details id="own-model"> (its <summary> is kept)
 * @param {{load: (entry: object) => Promise<void>, info: () => object|null}} page
 *   load: the page's model loader, given an entry whose `folder` is Translator.create's model;
 *   info: the loaded translator's info, or null when the load failed
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
  const details = el('div', { className: 'card', id: 'own-details', hidden: true });
  root.append(
    el('p', { className: 'meta', textContent: 'A Firefox Translations model (model.*.bin or model.*.intgemm.alphas.bin, vocab.*.spm, ' +
      'lex.*.s2t.bin; .gz copies are fine) or an OPUS-MT model (the unzipped folder: *.npz, decoder.yml, *.vocab.yml, ' +
      'source.spm, target.spm). The files are read here and converted in the page: nothing is uploaded.' }),
    el('p', { className: 'own-pickers' },
      el('label', { htmlFor: 'own-files', textContent: 'Files: ' }), files, ' ',
      el('label', { htmlFor: 'own-folder', textContent: 'Folder: ' }), folder),
    drop, status, details);

  async function use(list, how) {
    if (!list.length) return;
    details.hidden = true;
    const names = list.map((f) => f.name);
    status.textContent = `importing ${list.length} file${list.length > 1 ? 's' : ''} (${how}): ${names.join(', ')}`;
    const pair = names.map((n) => DIRECTION.exec(n)).find(Boolean);
    const modelName = names.find((n) => /\.(bin|npz)(\.gz)?$/.test(n) && !/^lex\./.test(n)) ?? 'model';
    const entry = { id: modelName.replace(/\.gz$/, ''), from: pair?.[1] ?? 'und', to: pair?.[2] ?? 'und', own: true,
      folder: { files: list } };
    await page.load(entry);
    const info = page.info();
    if (!info?.model.marian) {
      status.textContent = 'the model could not be used: see the message above';
      return;
    }
    // The registry's notes are about the shipped models, not this one; its reverse direction
    // (swap) is unknown.
    for (const id of ['domain-note', 'test-model-note']) document.getElementById(id).hidden = true;
    document.getElementById('swap').disabled = true;
    status.textContent = `translating with your model ${info.model.marian.name} (${info.model.marian.modelFile})`;
    describe(info);
  }

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
