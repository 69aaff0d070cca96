// Node side of the Bergamot driver: runs bergamot-worker.cjs in a worker thread. A Marian abort
// (bad model, missing parameter) kills the wasm instance, so each model gets a fresh worker.
import {Worker} from 'node:worker_threads';
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..');
export const PACKAGE = path.join(ROOT, 'web', 'node_modules', '@browsermt', 'bergamot-translator');
export const GLUE = path.join(PACKAGE, 'worker', 'bergamot-translator-worker.js');
export const WASM = path.join(PACKAGE, 'worker', 'bergamot-translator-worker.wasm');

export function bergamotAvailable() {
  return existsSync(GLUE) && existsSync(WASM);
}

// Decoder options of the harness: greedy (unless beamSize), one sentence per line, nothing but the
// translation.
export function bergamotConfig({precision = 'float32', maxLengthFactor = 2.0, beamSize = 1, miniBatchWords = 1024} = {}) {
  return {
    'beam-size': beamSize, 'normalize': 1.0, 'word-penalty': 0, 'max-length-factor': maxLengthFactor,
    'max-length-break': 128, 'mini-batch-words': miniBatchWords, 'workspace': 128, 'cpu-threads': 0,
    'gemm-precision': precision, 'skip-cost': true, 'quiet': true, 'quiet-translation': true,
    'ssplit-mode': 'sentence',
  };
}

export class BergamotNode {
  constructor() {
    this.worker = new Worker(path.join(here, 'bergamot-worker.cjs'));
    this.serial = 0;
    this.pending = new Map();
    this.dead = null;
    this.worker.on('message', ({id, result, error, log, ms}) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (error !== undefined) p.reject(Object.assign(new Error(error), {log}));
      else p.resolve({result, ms});
    });
    const fail = (e) => {
      this.dead = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`Bergamot worker exited (code ${code})`)));
  }

  call(op, args = {}, transfer = []) {
    if (this.dead) return Promise.reject(this.dead);
    const id = ++this.serial;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject});
      this.worker.postMessage({id, op, ...args}, transfer);
    });
  }

  static async start() {
    const b = new BergamotNode();
    const {result} = await b.call('init', {glue: GLUE, wasm: WASM});
    b.version = result.version;
    return b;
  }

  // shortlist: the ArrayBuffer of a binary lexical shortlist (lex.*.s2t.bin), or null.
  async load(model, vocabs, config, shortlist = null) {
    return this.call('load', {model, vocabs, config, shortlist});
  }

  async translate(texts) {
    return this.call('translate', {texts});
  }

  // All texts in one request: Bergamot's own batching (mini-batch-words).
  async translateBatch(texts) {
    return this.call('translateBatch', {texts});
  }

  async close() {
    this.dead = this.dead || new Error('closed');
    await this.worker.terminate();
  }
}
