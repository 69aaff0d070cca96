// Shared by the tests of the npm package (tests/web/*.test.mjs).
import { after, before } from 'node:test';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
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

/**
 * The Chromium tests' set-up, shared by their files: the demo's server (web/scripts/serve.mjs) and
 * one headless Chromium, started before the file's tests (nothing when `problems` is not empty) and
 * closed after them. Gives an object whose `server` and `browser` are set once started.
 */
export function chromiumWithDemoServer(problems) {
  const env = { server: null, browser: null };
  before(async () => {
    if (problems.length) return;
    requireDist();
    const { startServer } = await import('../../web/scripts/serve.mjs');
    env.server = await startServer({ port: 0, quiet: true });
    env.browser = await launchChromium(playwrightChromium());
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/** What a browser test lacks (Chromium, playwright-core, the native CLI), as messages. */
export function browserTestProblems(chromium) {
  return [
    !existsSync(CHROMIUM) && `no ${CHROMIUM} (apt-get install chromium)`,
    !chromium && 'npm playwright-core is not installed in web/node_modules (npm ci in web/)',
    !existsSync(nativeCli) && `no native CLI at ${nativeCli} (cmake --build build)`,
  ].filter(Boolean);
}

// Three browser engines: Chromium (npm playwright-core over CDP), Firefox ESR (npm puppeteer-core
// over WebDriver BiDi, no geckodriver) and WebKitGTK (its WebKitWebDriver under Xvfb, driven by npm
// selenium-webdriver, with the MiniBrowser binary). launchBrowser(kind) gives each the same small
// page API. The browser tests run in the engines that TFORMER_BROWSERS lists (comma-separated;
// Chromium when unset): tests/run_all has a suite per engine.
export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const XVFB_RUN = '/usr/bin/xvfb-run';

export const ENGINES = Object.freeze({
  chromium: { label: 'Chromium', npm: 'playwright-core', needs: () => [[CHROMIUM, 'apt-get install chromium']] },
  firefox: { label: 'Firefox ESR', npm: 'puppeteer-core', needs: () => [[FIREFOX, 'apt-get install firefox-esr']] },
  webkit: { label: 'WebKitGTK', npm: 'selenium-webdriver', needs: () => [[WEBKIT_DRIVER, 'apt-get install webkit2gtk-driver'],
    [MINIBROWSER, 'apt-get install libwebkit2gtk-4.1-0'], [XVFB_RUN, 'apt-get install xvfb xauth']] },
});

/** The engines the browser tests of this run are for: those of `among` that TFORMER_BROWSERS lists. */
export function testedEngines(among = Object.keys(ENGINES)) {
  const asked = (process.env.TFORMER_BROWSERS || 'chromium').split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = asked.filter((k) => !(k in ENGINES));
  if (unknown.length) throw new Error(`TFORMER_BROWSERS names ${unknown.join(', ')}: the engines are ${Object.keys(ENGINES).join(', ')}`);
  return asked.filter((k) => among.includes(k));
}

const webRequire = createRequire(path.join(webDir, 'package.json'));
function npmModule(name) {
  try {
    return webRequire(name);
  } catch {
    return null;
  }
}

/** What keeps `kind` from being launched here, as messages (none: it can be). */
export function engineProblems(kind) {
  const engine = ENGINES[kind];
  if (!engine) return [`no browser engine "${kind}" (the engines are ${Object.keys(ENGINES).join(', ')})`];
  return [
    ...engine.needs().filter(([file]) => !existsSync(file)).map(([file, fix]) => `no ${file} (${fix})`),
    !npmModule(engine.npm) && `npm ${engine.npm} is not installed in web/node_modules (npm ci in web/)`,
  ].filter(Boolean);
}

/**
 * node:test's `skip` for a test in `kind`: false where it can run, else why, naming the browser.
 * In CI (CI set) it is always false: a browser CI lacks fails its tests (launchBrowser says why)
 * instead of passing them unseen. `more`: other things the test lacks, as messages.
 */
export function engineSkip(kind, more = []) {
  const problems = [...engineProblems(kind), ...more];
  if (!problems.length || process.env.CI) return false;
  return `${ENGINES[kind]?.label ?? kind} skipped: ${problems.join('; ')}`;
}

/**
 * One browser of engine `kind` ('chromium' | 'firefox' | 'webkit'), launched for a test file.
 * Rejects with an Error naming the browser and what is missing when it cannot be launched.
 * options.executablePath: another binary (Chromium, Firefox).
 * @returns {Promise<Browser>} see the class below
 */
export async function launchBrowser(kind, options = {}) {
  const engine = ENGINES[kind];
  if (!engine) throw new Error(`no browser engine "${kind}" (the engines are ${Object.keys(ENGINES).join(', ')})`);
  const executable = options.executablePath ?? { chromium: CHROMIUM, firefox: FIREFOX, webkit: MINIBROWSER }[kind];
  const problems = [...(options.executablePath ? [] : engineProblems(kind)),
    ...(options.executablePath && !existsSync(options.executablePath) ? [`no ${options.executablePath}`] : [])];
  if (problems.length) throw new Error(`${engine.label} cannot be launched: ${problems.join('; ')}`);
  try {
    if (kind === 'chromium') {
      const chromium = npmModule('playwright-core').chromium;
      const browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
      return new Browser(kind, browser.version(), new ChromiumDriver(browser));
    }
    if (kind === 'firefox') {
      const puppeteer = npmModule('puppeteer-core');
      // A page's evaluate() may run for minutes (a benchmark, a long translation): puppeteer's 3 minutes are too few.
      const browser = await puppeteer.launch({ browser: 'firefox', executablePath: executable, headless: true, protocolTimeout: 900_000 });
      return new Browser(kind, (await browser.version()).replace(/^firefox\//, ''), new FirefoxDriver(browser));
    }
    const driver = await WebKitDriver.start(executable);
    return new Browser(kind, driver.version, driver);
  } catch (e) {
    throw new Error(`${engine.label} cannot be launched: ${e.message}`, { cause: e });
  }
}

/**
 * The browser of engine `kind` for this test file: launched on first use, kept for the file's
 * other tests (one browser per engine per file); the file closes them with
 * `after(closeSharedBrowsers)` at its top level.
 */
const shared = new Map();
export function sharedBrowser(kind) {
  if (!shared.has(kind)) shared.set(kind, launchBrowser(kind));
  return shared.get(kind);
}

export async function closeSharedBrowsers() {
  const launched = [...shared.values()];
  shared.clear();
  for (const browser of launched) await (await browser.catch(() => null))?.close();
}

const CHROMIUM_ARGS = ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];

/**
 * What the tests use of a browser: pages in contexts of their own (a context: its own storage,
 * caches and viewport; in WebKitGTK a context is a MiniBrowser session of its own).
 */
class Browser {
  constructor(kind, version, driver) {
    this.kind = kind;
    this.label = ENGINES[kind].label;
    this.version = version;
    this.driver = driver;
    this.raw = driver.browser;  // the engine's own browser object, for what only one engine has
  }
  /**
   * @param {{viewport?: {width: number, height: number}, fresh?: boolean}} [options] fresh: false
   *   gives Firefox's default context (its storage shared) instead of a new one: there a page may
   *   start more Workers (a tab of a user context of its own was seen to close with a pool of 8)
   */
  async newContext(options = {}) {
    return new Context(this, await this.driver.newContext(options.viewport ?? { width: 1100, height: 900 }, options.fresh ?? true));
  }
  /** A page in a context of its own (closed with the page). */
  async newPage(options = {}) {
    const context = await this.newContext(options);
    const page = await context.newPage();
    page.ownContext = context;
    return page;
  }
  async close() {
    await this.driver.close();
  }
}

class Context {
  constructor(browser, raw) {
    this.browser = browser;
    this.raw = raw;
  }
  async newPage() {
    return new Page(this.browser, await this.browser.driver.newPage(this.raw));
  }
  async close() {
    await this.browser.driver.closeContext(this.raw);
  }
}

/**
 * A page. evaluate(fn, arg) and waitForFunction(fn, arg, {timeout}) take a function (run in the
 * page with one serializable argument) or an expression; errors() gives the page's uncaught errors
 * and unhandled rejections, its console errors and (Chromium, Firefox) its failed requests as
 * "HTTP <status> <url>". The rest reads or works the DOM by CSS selector.
 */
class Page {
  constructor(browser, raw) {
    this.browser = browser;
    this.kind = browser.kind;
    this.raw = raw;  // the engine's own page (playwright, puppeteer) or session (selenium) for what only one engine has
    this.ownContext = null;
  }
  get driver() { return this.browser.driver; }
  goto(url) { return this.driver.goto(this.raw, url); }
  reload() { return this.driver.reload(this.raw); }
  url() { return this.driver.url(this.raw); }
  evaluate(fn, arg) { return this.driver.evaluate(this.raw, fn, arg); }
  async waitForFunction(fn, arg, { timeout = 30_000 } = {}) {
    const start = Date.now();
    const test = typeof fn === 'function' ? `(${fn})(${JSON.stringify(arg ?? null)})` : fn;
    for (;;) {
      if (await this.evaluate(`!!(${test})`)) return;
      if (Date.now() - start > timeout) throw new Error(`${this.browser.label}: waited ${timeout} ms for ${test.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  waitForTimeout(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
  click(selector) { return this.driver.click(this.raw, selector); }
  hover(selector) { return this.driver.hover(this.raw, selector); }
  /** Moves the pointer to (x, y) of the viewport. */
  moveMouse(x, y) { return this.driver.moveMouse(this.raw, x, y); }
  /** Sets a field's value as typing it would end (one input event, then change). */
  async fill(selector, value) {
    await this.evaluate(([s, v]) => {
      const e = document.querySelector(s);
      if (!e) throw new Error(`no element ${s}`);
      e.focus();
      e.value = v;
      e.dispatchEvent(new Event('input', { bubbles: true }));
      e.dispatchEvent(new Event('change', { bubbles: true }));
    }, [selector, value]);
  }
  /** Types `text` into the element key by key (WebKitGTK: as one WebDriver sendKeys, without the delay). */
  type(selector, text, { delay = 0 } = {}) { return this.driver.type(this.raw, selector, text, delay); }
  /** Chooses an option of a select by value, as a user's choice would (input, then change). */
  selectOption(selector, value) { return this.fill(selector, value); }
  async check(selector) {
    if (!(await this.evaluate((s) => document.querySelector(s).checked, selector))) await this.click(selector);
  }
  textContent(selector) { return this.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector); }
  inputValue(selector) { return this.evaluate((s) => document.querySelector(s).value, selector); }
  getAttribute(selector, name) { return this.evaluate(([s, n]) => document.querySelector(s).getAttribute(n), [selector, name]); }
  /** Whether the element exists. */
  async has(selector) { return this.evaluate((s) => !!document.querySelector(s), selector); }
  /** true where the element exists, else null (as playwright's page.$ reads in a test). */
  async $(selector) { return (await this.has(selector)) || null; }
  get mouse() { return { move: (x, y) => this.moveMouse(x, y) }; }
  isVisible(selector) {
    return this.evaluate((s) => {
      const e = document.querySelector(s);
      if (!e) return false;
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    }, selector);
  }
  isDisabled(selector) { return this.evaluate((s) => document.querySelector(s).disabled === true, selector); }
  /** A PNG of the page (fullPage: all of it; WebKitGTK takes the viewport only). */
  screenshot({ path: file, fullPage = false }) { return this.driver.screenshot(this.raw, file, fullPage); }
  errors() { return this.driver.errors(this.raw); }
  async close() {
    await this.driver.closePage(this.raw);
    await this.ownContext?.close();
  }
}

// Everything a page's errors() gives is collected from these events (Chromium, Firefox).
function watchPage(page, errors, { pageerror, console: consoleEvent, response }) {
  page.on(pageerror, (e) => errors.push(e.message));
  page.on(consoleEvent, (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on(response, (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`); });
}

class ChromiumDriver {
  constructor(browser) {
    this.browser = browser;
    this.collected = new WeakMap();
  }
  newContext(viewport) { return this.browser.newContext({ viewport }); }
  closeContext(context) { return context.close(); }
  async newPage(context) {
    const page = await context.newPage();
    const errors = [];
    this.collected.set(page, errors);
    watchPage(page, errors, { pageerror: 'pageerror', console: 'console', response: 'response' });
    return page;
  }
  closePage(page) { return page.close(); }
  async goto(page, url) { await page.goto(url); }
  async reload(page) { await page.reload(); }
  url(page) { return page.url(); }
  evaluate(page, fn, arg) { return page.evaluate(fn, arg); }
  click(page, selector) { return page.click(selector); }
  hover(page, selector) { return page.hover(selector); }
  moveMouse(page, x, y) { return page.mouse.move(x, y); }
  type(page, selector, text, delay) { return page.locator(selector).pressSequentially(text, { delay, timeout: 600_000 }); }
  async screenshot(page, file, fullPage) { await page.screenshot({ path: file, fullPage }); }
  async errors(page) { return this.collected.get(page); }
  close() { return this.browser.close(); }
}

class FirefoxDriver {
  constructor(browser) {
    this.browser = browser;
    this.collected = new WeakMap();
    this.viewports = new WeakMap();
  }
  async newContext(viewport, fresh) {
    const context = fresh ? await this.browser.createBrowserContext() : this.browser.defaultBrowserContext();
    this.viewports.set(context, viewport);
    return context;
  }
  async closeContext(context) {
    if (context !== this.browser.defaultBrowserContext()) await context.close();
  }
  async newPage(context) {
    const page = await context.newPage();
    await page.setViewport(this.viewports.get(context));
    page.setDefaultTimeout(120_000);
    const errors = [];
    this.collected.set(page, errors);
    watchPage(page, errors, { pageerror: 'pageerror', console: 'console', response: 'response' });
    return page;
  }
  closePage(page) { return page.close(); }
  async goto(page, url) { await page.goto(url, { timeout: 120_000 }); }
  async reload(page) { await page.reload({ timeout: 120_000 }); }
  url(page) { return page.url(); }
  evaluate(page, fn, arg) {
    return typeof fn === 'function' ? page.evaluate(fn, arg) : page.evaluate(fn);
  }
  click(page, selector) { return page.click(selector); }
  hover(page, selector) { return page.hover(selector); }
  moveMouse(page, x, y) { return page.mouse.move(x, y); }
  type(page, selector, text, delay) { return page.type(selector, text, { delay }); }
  async screenshot(page, file, fullPage) { await page.screenshot({ path: file, fullPage }); }
  async errors(page) { return this.collected.get(page); }
  close() { return this.browser.close(); }
}

// WebKitGTK: console output and network events do not come back through its WebDriver, so each
// page gets hooks of its own once loaded (uncaught errors, unhandled rejections, console.error)
// that collect into a global; every call reads what they gathered. What a page throws before its
// load event is not seen: the tests read the page's own state, which shows such a failure.
const WEBKIT_HOOKS = `if (!window.__testErrors) {
  window.__testErrors = [];
  addEventListener('error', (e) => window.__testErrors.push(e.message || String(e.error)));
  addEventListener('unhandledrejection', (e) => window.__testErrors.push('unhandled rejection: ' + (e.reason && e.reason.message || e.reason)));
  const consoleError = console.error;
  console.error = (...args) => { window.__testErrors.push(args.map(String).join(' ')); consoleError.apply(console, args); };
}`;

class WebKitDriver {
  static async start(minibrowser) {
    const { Builder } = npmModule('selenium-webdriver');
    const port = await freePort();
    // A screen as tall as the tests' tallest viewport (pages that keep every block in view).
    const child = spawn(XVFB_RUN, ['-a', '-s', '-screen 0 1600x5200x24', WEBKIT_DRIVER, `--port=${port}`],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; if (process.env.TFORMER_WEBKIT_LOG) process.stderr.write(d); });
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const ready = await fetch(`${url}/status`).then((r) => r.ok, () => false);
      if (ready) break;
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 100))]);
      if (code !== undefined || i > 300) {
        try { process.kill(-child.pid); } catch { /* gone */ }
        throw new Error(`${WEBKIT_DRIVER} under xvfb-run did not start (${code === undefined ? 'no answer in 30 s' : `exit ${code}`}): ${stderr.trim()}`);
      }
    }
    const driver = new WebKitDriver(Builder, url, minibrowser, child);
    // The first session tells the version; it is kept as the browser's first context.
    driver.spare = await driver.session();
    const caps = await driver.spare.getCapabilities();
    driver.version = caps.get('browserVersion');
    return driver;
  }
  constructor(Builder, url, minibrowser, child) {
    this.Builder = Builder;
    this.serverUrl = url;
    this.minibrowser = minibrowser;
    this.child = child;
    this.sessions = new Set();
    this.collected = new WeakMap();
  }
  async session() {
    const session = await new this.Builder().usingServer(this.serverUrl).withCapabilities({
      browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: this.minibrowser, args: ['--automation'] },
    }).build();
    await session.manage().setTimeouts({ script: 600_000, pageLoad: 120_000 });
    this.sessions.add(session);
    return session;
  }
  async newContext(viewport) {
    const session = this.spare ?? await this.session();
    this.spare = null;
    await session.manage().window().setRect({ width: viewport.width, height: viewport.height });
    return { session, pages: 0 };
  }
  async closeContext(context) {
    if (!this.sessions.delete(context.session)) return;
    await context.session.quit().catch(() => {});
  }
  // One page at a time per context: its session's window (a page closed, the next one reuses it).
  async newPage(context) {
    if (context.pages++) throw new Error('WebKitGTK: one open page per context in these tests');
    this.collected.set(context, []);
    return context;
  }
  async closePage(page) {
    await this.drain(page);
    await page.session.get('about:blank').catch(() => {});
    page.pages--;
  }
  async goto(page, url) {
    await this.drain(page);
    await page.session.get(url);
    await page.session.executeScript(WEBKIT_HOOKS);
  }
  async reload(page) {
    await this.drain(page);
    await page.session.navigate().refresh();
    await page.session.executeScript(WEBKIT_HOOKS);
  }
  url(page) { return page.session.getCurrentUrl(); }
  async evaluate(page, fn, arg) {
    // The result comes back as JSON text: undefined stays undefined (WebDriver would make it null).
    const call = typeof fn === 'function' ? `(${fn})(arguments[0])` : `(0, eval)(arguments[0])`;
    const script = `${WEBKIT_HOOKS}
      const errors = () => window.__testErrors.splice(0);
      return Promise.resolve(${call}).then((value) => JSON.stringify({ value, errors: errors() }),
        (e) => JSON.stringify({ thrown: String(e && e.stack ? e.message + '\\n' + e.stack : e), errors: errors() }));`;
    const out = JSON.parse(await page.session.executeScript(script, typeof fn === 'function' ? arg : fn));
    this.collected.get(page).push(...out.errors);
    if ('thrown' in out) throw new Error(`in WebKitGTK's page: ${out.thrown}`);
    return out.value;
  }
  async drain(page) {
    try {
      await this.evaluate(page, 'undefined');
    } catch { /* no page yet */ }
  }
  async element(page, selector) {
    const { By } = npmModule('selenium-webdriver');
    return page.session.findElement(By.css(selector));
  }
  async click(page, selector) {
    await (await this.element(page, selector)).click();
  }
  async hover(page, selector) {
    await page.session.actions().move({ origin: await this.element(page, selector) }).perform();
  }
  async type(page, selector, text) {
    await (await this.element(page, selector)).sendKeys(text);
  }
  async moveMouse(page, x, y) {
    await page.session.actions().move({ x, y }).perform();
  }
  async screenshot(page, file) {
    writeFileSync(file, Buffer.from(await page.session.takeScreenshot(), 'base64'));
  }
  async errors(page) {
    await this.drain(page);
    return this.collected.get(page);
  }
  async close() {
    for (const session of this.sessions) await session.quit().catch(() => {});
    this.sessions.clear();
    try {
      process.kill(-this.child.pid);
    } catch { /* gone */ }
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The wasm build the package picks by default in `kind` on a page with (isolated) or without
 * COOP/COEP: threads wherever the engine gives SharedArrayBuffer (relaxed SIMD where it validates
 * it and web/dist has that build), single-threaded in WebKitGTK, which gives a cross-origin
 * isolated page no SharedArrayBuffer.
 */
export function expectedVariant(kind, isolated) {
  if (!isolated || kind === 'webkit') return 'single';
  return existsSync(path.join(webDir, 'dist', 'tformer-mtr.wasm')) ? 'relaxed' : 'threaded';
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
