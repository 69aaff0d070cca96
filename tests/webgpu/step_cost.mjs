#!/usr/bin/env node
// What a decoder step costs wasm, split the way the WebGPU backend splits it: the output
// projection (the part the GPU takes over: `computeOnCpu()` of a 'project' request, d_model x vocab
// multiply-adds per row plus wasm's log-softmax) against the rest of the step (`next()`: decoder
// layers and the search rules, which stay on wasm). The figures behind the 'auto' rule's threshold
// (web/src/select.js, web/README.md "Choosing the backend").
//
//   node tests/webgpu/step_cost.mjs [--model FILE] [--sentences N] [--max-length N] [--variant st|mt]
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadVariant, options, repoRoot } from '../wasm/load_module.mjs';
import { germanSentences, fixtureFile } from './models.mjs';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    sentences: { type: 'string', default: '4' },
    'max-length': { type: 'string', default: '16' },
    variant: { type: 'string', default: 'st' },
  },
});
const large = process.env.TFORMER_LARGE_MODEL || path.join(repoRoot, 'build', 'webgpu-models', 'tiny-random.tfm');
const file = args.model ?? (existsSync(large) ? large : fixtureFile('marian', 'model.tfm'));
const Module = await loadVariant(args.variant);
const translator = new Module.Translator(new Uint8Array(readFileSync(file)), 1);
const { config } = translator.info();
const texts = germanSentences(Number(args.sentences), { maxWords: 12 });

// One sentence at a time (1 row a step: the latency case) and all together (a batch).
for (const [label, inputs] of [['one sentence at a time', texts.map((t) => [t])], [`batch of ${texts.length}`, [texts]]]) {
  let projectMs = 0, projectRows = 0, steps = 0, nextMs = 0, encodeMs = 0;
  for (const input of inputs) {
    const session = translator.begin(input, options({ maxLength: Number(args['max-length']) }));
    for (;;) {
      let t0 = performance.now();
      const need = session.next();
      nextMs += performance.now() - t0;
      if (need.kind === 'done') break;
      const rows = need.rows;
      t0 = performance.now();
      session.computeOnCpu();
      const ms = performance.now() - t0;
      if (need.kind === 'project') { projectMs += ms; projectRows += rows; steps++; } else encodeMs += ms;
    }
    session.results();
    session.delete();
  }
  console.log(`${path.basename(file)} (d ${config.d_model} x vocab ${config.vocab_size} = ${config.d_model * config.vocab_size}), ${label}: ` +
    `${steps} steps, ${projectRows} rows; projection ${(projectMs / steps).toFixed(2)} ms/step = ${(projectMs / projectRows).toFixed(3)} ms/row ` +
    `(${((2 * config.d_model * config.vocab_size * projectRows) / (projectMs / 1000) / 1e9).toFixed(1)} GFLOP/s); ` +
    `rest of the step (next: decoder layers, search) ${(nextMs / steps).toFixed(2)} ms/step; encoder ${encodeMs.toFixed(0)} ms in all`);
}
translator.delete();
