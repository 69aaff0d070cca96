// tformer-wasm/polyfill/service-worker: the polyfill (polyfill.js) for a Service Worker.
//
//   // sw.js, registered with navigator.serviceWorker.register('/sw.js', { type: 'module' })
//   import { install } from 'tformer-wasm/polyfill/service-worker';
//   install();
//
// A Service Worker can start no Worker and refuses import(). The package then runs its engine in
// the Service Worker's own thread on the single-threaded wasm build (src/in-thread-host.js), and
// the glue of that build comes here by a static import instead of import() (src/glue.js). It is
// the package's own dist/tformer-st.mjs: with `wasmBase`, the .wasm served there must be of the
// same build. Elsewhere (a page, a Worker, Node) this module is the polyfill as well.
import createSingleThreaded from '../dist/tformer-st.mjs';
import { provideGlue } from './glue.js';

provideGlue('single', createSingleThreaded);

export { install, CreateMonitor } from './polyfill.js';
