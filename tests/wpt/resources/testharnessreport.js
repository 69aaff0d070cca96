// testharnessreport.js: the hook each runner of web-platform-tests supplies (WPT's own is a stub).
// This one is tests/wpt's: the results go to the browser driver (tests/wpt/driver.mjs) through
// window.tformerReport, a binding it exposes (the page is never polled: a script the driver runs in
// the page counts as a user gesture, which would give the page the activation the tests check it
// lacks), and the harness's timeouts are tripled: these tests download and start models on a
// shared CI machine, as wptrunner's timeout multiplier allows for slow builds.
setup({ output: false, timeout_multiplier: 3 });

add_completion_callback((tests, status) => {
  window.tformerReport({
    status: status.status,
    message: status.message ?? null,
    stack: status.stack ?? null,
    tests: tests.map((t) => ({ name: t.name, status: t.status, message: t.message ?? null })),
  });
});
