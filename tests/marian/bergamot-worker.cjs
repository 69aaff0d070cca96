// Bergamot's wasm (npm @browsermt/bergamot-translator 0.4.9: Marian compiled to WebAssembly) in a
// worker, driven directly through its Embind classes so that the harness chooses every decoder
// option (the package's own worker overrides max-length-factor and friends).
//
// Runs unchanged as a Node worker_threads worker and as a browser Web Worker (classic script).
// Messages in:  {id, op: 'init', glue, wasm}           paths (Node) or URLs (browser) of the package's
//                                                       worker/bergamot-translator-worker.{js,wasm}
//               {id, op: 'load', model, vocabs, config, shortlist}
//                                                       model: ArrayBuffer of a .bin; vocabs: 1 or 2
//                                                       SentencePiece ArrayBuffers; config: {key: value};
//                                                       shortlist: a binary lex.*.s2t.bin or none
//               {id, op: 'translate', texts}            one request per text; returns the texts
//               {id, op: 'translateBatch', texts}       all texts in one request (Bergamot batches
//                                                       them itself); returns the texts
// Messages out: {id, result} or {id, error, log}        log: Marian's last stderr lines
'use strict';

const isNode = typeof process === 'object' && !!(process.versions && process.versions.node) &&
    typeof importScripts !== 'function';
let port;
if (isNode) {
  port = require('node:worker_threads').parentPort;
} else {
  port = self;
}
const post = (m) => port.postMessage(m);

// The package's fallback int8 gemm (exported by the wasm itself), linked as the package does.
const GEMM = {
  int8_prepare_a: 'int8PrepareAFallback',
  int8_prepare_b: 'int8PrepareBFallback',
  int8_prepare_b_from_transposed: 'int8PrepareBFromTransposedFallback',
  int8_prepare_b_from_quantized_transposed: 'int8PrepareBFromQuantizedTransposedFallback',
  int8_prepare_bias: 'int8PrepareBiasFallback',
  int8_multiply_and_add_bias: 'int8MultiplyAndAddBiasFallback',
  int8_select_columns_of_b: 'int8SelectColumnsOfBFallback',
};

const log = [];
let M = null;
let service = null;
let model = null;

function remember(line) {
  log.push(String(line));
  if (log.length > 40) log.shift();
}

async function init({glue, wasm}) {
  const wasmBytes = isNode ? require('node:fs').readFileSync(wasm) : await (await fetch(wasm)).arrayBuffer();
  await new Promise((resolve, reject) => {
    const mod = {
      instantiateWasm(info, accept) {
        const gemm = {};
        for (const [key, name] of Object.entries(GEMM)) gemm[key] = (...args) => mod.asm[name](...args);
        WebAssembly.instantiate(wasmBytes, {...info, wasm_gemm: gemm})
            .then(({instance}) => accept(instance), reject);
        return {};
      },
      onRuntimeInitialized: resolve,
      onAbort: (what) => reject(new Error(`Bergamot aborted during start-up: ${what}`)),
      print: remember,
      printErr: remember,
    };
    globalThis.Module = mod;
    if (isNode) {
      const fs = require('node:fs');
      require('node:vm').runInThisContext(fs.readFileSync(glue, 'utf8'), {filename: glue});
    } else {
      importScripts(glue);
    }
  });
  M = globalThis.Module;
  service = new M.BlockingService({cacheSize: 0});
  return {version: typeof BERGAMOT_VERSION_FULL !== 'undefined' ? BERGAMOT_VERSION_FULL : 'unknown'};
}

function aligned(buffer, alignment) {
  const bytes = new Int8Array(buffer);
  const memory = new M.AlignedMemory(bytes.byteLength, alignment);
  memory.getByteArrayView().set(bytes);
  return memory;
}

function yaml(config) {
  return Object.entries(config).map(([k, v]) => `${k}: ${v}`).join('\n') + '\n';
}

function load({model: modelBytes, vocabs, config, shortlist}) {
  if (model) model.delete();
  const list = new M.AlignedMemoryList();
  for (const v of vocabs) list.push_back(aligned(v, 64));
  // As Firefox loads its models: the binary shortlist's bytes, or none (an empty buffer).
  model = new M.TranslationModel(yaml(config), aligned(modelBytes, 256), aligned(shortlist || new ArrayBuffer(0), 64), list, null);
  return true;
}

function translate({texts}) {
  const out = [];
  for (const text of texts) {
    const input = new M.VectorString();
    input.push_back(text);
    const options = new M.VectorResponseOptions();
    options.push_back({qualityScores: false, alignment: false, html: false});
    const responses = service.translate(model, input, options);
    out.push(responses.get(0).getTranslatedText());
    responses.delete();
    options.delete();
    input.delete();
  }
  return out;
}

function translateBatch({texts}) {
  const input = new M.VectorString();
  const options = new M.VectorResponseOptions();
  for (const text of texts) {
    input.push_back(text);
    options.push_back({qualityScores: false, alignment: false, html: false});
  }
  const responses = service.translate(model, input, options);
  const out = [];
  for (let i = 0; i < texts.length; ++i) out.push(responses.get(i).getTranslatedText());
  responses.delete();
  options.delete();
  input.delete();
  return out;
}

const OPS = {init, load, translate, translateBatch};

if (isNode) port.on('message', (data) => onMessage({data}));
else self.addEventListener('message', onMessage);

async function onMessage({data}) {
  const {id, op} = data;
  try {
    if (!OPS[op]) throw new Error(`unknown op ${op}`);
    const t0 = Date.now();
    const result = await OPS[op](data);
    post({id, result, ms: Date.now() - t0});
  } catch (e) {
    post({id, error: String(e && e.message || e), log: log.slice(-15)});
  }
}
