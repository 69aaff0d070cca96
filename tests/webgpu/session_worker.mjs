// The end-to-end check in a dedicated module Worker, where the npm package runs translations.
import { runCheck } from './session_runner.mjs';

self.onmessage = async (event) => self.postMessage(await runCheck(event.data));
