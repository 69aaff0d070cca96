// testdriver.js for tests/wpt: test_driver.bless() is a real click. The page adds a button and
// asks the browser driver to click it (window.tformerClick, a binding tests/wpt/driver.mjs exposes:
// Playwright's page.click, which sends the browser trusted mouse input); the click gives the page
// transient user activation, as a user's would. WPT's own testdriver.js does the same through
// WebDriver (test_driver.click) and needs wptrunner.
'use strict';
(() => {
  let count = 0;

  async function bless(intent, action, context = window) {
    if (typeof window.tformerClick !== 'function') throw new Error('test_driver.bless() needs the browser driver (tests/wpt/driver.mjs)');
    const doc = context.document;
    const button = doc.createElement('button');
    button.id = `wpt-test-driver-bless-${++count}`;
    button.textContent = intent || 'click to bless';
    button.style.cssText = 'position: fixed; left: 0; top: 0; width: 160px; height: 40px; z-index: 2147483647';
    const clicked = new Promise((resolve) => button.addEventListener('click', resolve, { once: true }));
    doc.body.appendChild(button);
    try {
      await window.tformerClick(`#${button.id}`);
      await clicked;
    } finally {
      button.remove();
    }
    return typeof action === 'function' ? action() : null;
  }

  window.test_driver = { bless };
})();
