// The browser driver of tests/wpt: headless Chromium through playwright-core, as wptrunner would
// drive it: gc() exposed (--js-flags=--expose-gc; the translator tests call it), test_driver.bless()
// answered with a real click (resources/testdriver.js asks for it through window.tformerClick), each
// test page's results reported through window.tformerReport (resources/testharnessreport.js).

// testharness.js's status codes.
export const TEST_STATUS = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
export const HARNESS_STATUS = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];

/** Headless Chromium for the tests (no sandbox: CI runs as root; nothing fetched in the background). */
export function launchForWpt(chromium, executablePath) {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--js-flags=--expose-gc'],
  });
}

const reports = new WeakMap();  // page -> the resolver of its results

/**
 * A fresh browser context (empty caches and storage) whose pages can ask for a real click,
 * window.tformerClick(selector), which clicks the element with trusted mouse input and resolves
 * after it, and report their results, window.tformerReport(results).
 */
export async function wptContext(browser) {
  const context = await browser.newContext();
  await context.exposeBinding('tformerClick', async ({ page }, selector) => {
    await page.click(selector, { timeout: 30_000 });
  });
  await context.exposeBinding('tformerReport', ({ page }, results) => reports.get(page)?.(results));
  return context;
}

/**
 * Runs one test page in a context of wptContext(): { url, status (harness), message,
 * tests: [{name, status, message}], errors: [uncaught page errors] }. A page that does not finish in
 * `timeoutMs` has status TIMEOUT. Nothing is evaluated in the page (see testharnessreport.js).
 */
export async function runTestPage(context, url, { timeoutMs = 300_000 } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let timer;
  const reported = new Promise((resolve) => {
    reports.set(page, resolve);
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    await page.goto(url);
    const results = await reported;
    if (!results) return { url, status: 'TIMEOUT', message: `no results in ${timeoutMs / 1000} s`, tests: [], errors };
    return {
      url,
      status: HARNESS_STATUS[results.status] ?? String(results.status),
      message: results.message,
      tests: results.tests.map((t) => ({ name: t.name, status: TEST_STATUS[t.status] ?? String(t.status), message: t.message })),
      errors,
    };
  } finally {
    clearTimeout(timer);
    await page.close();
  }
}
