// The demo's service worker precaches every file the page needs offline: the demo's own files,
// every module of the package (src/**/*.js, the WebGPU backend included) and the wasm builds (scripts/build.mjs FILES).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { webDir } from './helpers.mjs';

test('demo/sw.js precaches the page, every package module and the wasm builds', async () => {
  const sw = readFileSync(path.join(webDir, 'demo', 'sw.js'), 'utf8');
  const list = JSON.parse(sw.match(/const PRECACHE = (\[[^\]]*\]);/)[1].replace(/'/g, '"').replace(/,\s*\]/, ']'));
  const { FILES } = await import(path.join(webDir, 'scripts', 'build.mjs'));
  const wanted = [
    './', ...readdirSync(path.join(webDir, 'demo')).filter((f) => /\.(js|css|svg)$/.test(f) && f !== 'sw.js'), 'registry.json',
    // every module the package's Worker may import, the WebGPU backend's included
    ...readdirSync(path.join(webDir, 'src'), { recursive: true }).filter((f) => f.endsWith('.js'))
      .map((f) => `../src/${f.split(path.sep).join('/')}`),
    ...(FILES ?? []).map((f) => `../dist/${f}`),
  ];
  assert.ok(FILES?.length, 'scripts/build.mjs exports FILES');
  assert.deepEqual([...list].sort(), [...new Set(wanted)].sort());
});
