// Emscripten 3.1.6 emits node code that uses `require` and `__dirname`, which an ES module does
// not have. In node (only there), give this module its own; browsers skip the branch. Without a
// top-level await (process.getBuiltinModule is synchronous), so that the module evaluates
// synchronously: a Service Worker refuses a module graph with a top-level await.
var require, __dirname;
if (typeof process === 'object' && process.versions && process.versions.node) {
  require = process.getBuiltinModule('node:module').createRequire(import.meta.url);
  __dirname = decodeURIComponent(new URL('.', import.meta.url).pathname).replace(/\/$/, '');
}
