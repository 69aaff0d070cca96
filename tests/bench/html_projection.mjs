#!/usr/bin/env node
// The HTML projection's cost against the size of a block: one paragraph of N inline elements
// (`<b>wN</b> `), its sentence "translated" to every other word with a one-to-one alignment, put
// back by Module.projectHtml (tformer/html.h) in the single-threaded wasm build. Prints, for each
// size, the best of --runs runs and the time per element, and the ratio of the largest size's
// time per element to the smallest's: about 1 for a linear cost, 32 for a quadratic one over
// 125..4000 elements.
//
//   node tests/bench/html_projection.mjs [--sizes 125,500,1000,2000,4000] [--runs 9]
//
// Needs build-wasm (emcmake cmake -S . -B build-wasm && cmake --build build-wasm).
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

import { loadVariant } from '../wasm/load_module.mjs';

const { values: a } = parseArgs({ options: {
  sizes: { type: 'string', default: '125,500,1000,2000,4000' },
  runs: { type: 'string', default: '9' },
} });
const sizes = a.sizes.split(',').map(Number);
const runs = Number(a.runs);
if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !Number.isInteger(runs) || runs < 1) {
  console.error('--sizes takes positive integers separated by commas, --runs a positive integer');
  process.exit(2);
}

function block(n) {
  let html = '<p>', source = '', target = '';
  const alignment = [];
  for (let i = 0; i < n; ++i) {
    const w = `w${i % 97}`;
    html += `<b>${w}</b> `;
    source += (i ? ' ' : '') + w;
    if (i % 2 === 0) {
      target += (i ? ' ' : '') + w;
      alignment.push(i);
    }
  }
  return { html: `${html}</p>`, blocks: [[{ source, target, alignment }]] };
}

const M = await loadVariant('st');
console.log(`# CPU: ${cpus()[0].model}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
M.projectHtml(block(sizes.at(-1)).html, block(sizes.at(-1)).blocks, false);  // the JIT's first runs
const perElement = [];
for (const n of sizes) {
  const { html, blocks } = block(n);
  let best = Infinity;
  for (let r = 0; r < runs; ++r) {
    const start = performance.now();
    const out = M.projectHtml(html, blocks, false);
    best = Math.min(best, performance.now() - start);
    if (!out.includes('<b>w0</b>')) throw new Error('the projection lost the first element');
  }
  perElement.push(best / n);
  console.log(`${String(n).padStart(6)} elements: ${best.toFixed(1).padStart(8)} ms, ${(1000 * best / n).toFixed(2)} µs per element`);
}
console.log(`per-element time, ${sizes.at(-1)} against ${sizes[0]} elements: ${(perElement.at(-1) / perElement[0]).toFixed(2)}x`);
