// Shared by the tests of the npm package (tests/web/*.test.mjs).
import { after } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const webDir = path.join(repoRoot, 'web');
export const nativeCli = process.env.TFORMER_NATIVE_CLI || path.join(repoRoot, 'build', 'tformer');

// Headless Chromium driven by npm playwright-core (the browser tests). Missing tools fail a suite
// rather than skip it: .ci/run installs them.
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const screenshots = path.join(repoRoot, 'build-web', 'screenshots');

/** playwright-core's chromium launcher from web/node_modules, or null when it is not installed. */
export function playwrightChromium() {
  try {
    return createRequire(path.join(webDir, 'package.json'))('playwright-core').chromium;
  } catch {
    return null;
  }
}

/** Headless Chromium as every browser test runs it (no sandbox: CI runs as root; nothing fetched
 * in the background), from playwright-core's launcher. */
export function launchChromium(chromium) {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
}

/** What a browser test lacks (Chromium, playwright-core, the native CLI), as messages. */
export function browserTestProblems(chromium) {
  return [
    !existsSync(CHROMIUM) && `no ${CHROMIUM} (apt-get install chromium)`,
    !chromium && 'npm playwright-core is not installed in web/node_modules (npm ci in web/)',
    !existsSync(nativeCli) && `no native CLI at ${nativeCli} (cmake --build build)`,
  ].filter(Boolean);
}

// translate() options for the plain model, as the references (PyTorch, Bergamot, the CLI with
// --no-passthrough --no-repetition-guard) compute it: passthrough and the repetition guard are on
// by default.
export const PLAIN = Object.freeze({ passthrough: false, repetitionGuard: false });

export function fixturePath(name, file = 'model.tfm') {
  return path.join(repoRoot, 'tests', 'fixtures', name, file);
}

export function fixtureBytes(name) {
  return new Uint8Array(readFileSync(fixturePath(name)));
}

export function golden(name) {
  return JSON.parse(readFileSync(fixturePath(name, 'golden.json'), 'utf8'));
}

// The package runs from web/src with the wasm builds in web/dist (`npm run build` in web/).
export function requireDist() {
  const missing = ['tformer-mt.mjs', 'tformer-mt.wasm', 'tformer-st.mjs', 'tformer-st.wasm']
    .filter((f) => !existsSync(path.join(webDir, 'dist', f)));
  if (missing.length) throw new Error(`web/dist lacks ${missing.join(', ')}: run \`npm run build\` in web/ after the wasm build`);
}

export async function importPackage() {
  requireDist();
  return import(path.join(webDir, 'src', 'index.js'));
}

// The package for one test file, and create(): Translator.create with the file's defaults under the
// options given, each translator it made disposed when the file's tests have ended.
export async function packageUnderTest(defaults = {}) {
  const pkg = await importPackage();
  const made = [];
  after(() => { for (const t of made) t.dispose(); });
  const create = async (options) => {
    const t = await pkg.Translator.create({ ...defaults, ...options });
    made.push(t);
    return t;
  };
  return { pkg, create };
}

// A cache with the Cache API's match/put/delete (Node has no Cache API).
export class MemoryCache {
  constructor() {
    this.entries = new Map();
  }
  async match(key) {
    const stored = this.entries.get(String(key));
    return stored ? new Response(stored.body.slice(), { headers: stored.headers }) : undefined;
  }
  async put(key, response) {
    this.entries.set(String(key), { body: new Uint8Array(await response.arrayBuffer()), headers: [...response.headers] });
  }
  async delete(key) {
    return this.entries.delete(String(key));
  }
}

// A .tfm file whose JSON header text is replaced by edit(text): the data section is re-aligned to
// 64 bytes (docs/FORMAT.md); tensor offsets are relative to the data section, so they hold.
export function withHeaderText(bytes, edit) {
  const view = Buffer.from(bytes);
  const length = Number(view.readBigUInt64LE(16));
  const data = view.subarray(Math.ceil((24 + length) / 64) * 64);
  const json = Buffer.from(edit(view.toString('utf8', 24, 24 + length)));
  const start = Math.ceil((24 + json.length) / 64) * 64;
  const out = Buffer.alloc(start + data.length);
  view.copy(out, 0, 0, 16);
  out.writeBigUInt64LE(BigInt(json.length), 16);
  json.copy(out, 24);
  data.copy(out, start);
  return out;
}

// A .tfm file with other metadata.
export function withMetadata(bytes, metadata) {
  return withHeaderText(bytes, (text) => JSON.stringify({ ...JSON.parse(text), metadata }));
}
