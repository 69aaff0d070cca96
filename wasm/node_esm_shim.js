// Emscripten 3.1.6 emits node code that uses `require` and `__dirname`, which an ES module does
// not have. In node (only there), give this module its own; browsers skip the branch.
var require, __dirname;
if (typeof process === 'object' && process.versions && process.versions.node) {
  const { createRequire } = await import('node:module');
  require = createRequire(import.meta.url);
  __dirname = decodeURIComponent(new URL('.', import.meta.url).pathname).replace(/\/$/, '');
}
