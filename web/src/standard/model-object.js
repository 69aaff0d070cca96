// The shared machinery of the web's model APIs (webmachinelearning/writing-assistance-apis,
// "Shared infrastructure"), on which Translator and LanguageDetector are built here: creating a
// model object (validation, the permissions policy, availability, user activation for a download,
// the download with a monitor's progress, abort), the operations of a destroyable model (the
// composite of a call's signal and the object's destruction), CreateMonitor, and the
// DOMExceptions they reject with.
//
// Where this departs from the text: the permissions policy and user activation count where a script
// can read them (permissions.js says where it cannot), and an activation is not consumed.
import { defineInterface, dictionary } from './webidl.js';
import { allowedToUse, transientActivation } from './permissions.js';

/** A DOMException with `name` ("NotSupportedError", "NetworkError", ...). */
export function domException(name, message) {
  return new DOMException(message, name);
}

/**
 * A QuotaExceededError with `requested` and `quota`: the browser's own class where it has one
 * (WebIDL's QuotaExceededError, a DOMException), else a DOMException of that name with the two
 * numbers as properties.
 */
export function quotaExceededError(requested, quota) {
  const message = `the input needs ${requested} of the input quota, which is ${quota}`;
  if (typeof globalThis.QuotaExceededError === 'function') {
    try {
      return new globalThis.QuotaExceededError(message, { requested, quota });
    } catch { /* an older signature: fall through */ }
  }
  const e = new DOMException(message, 'QuotaExceededError');
  Object.defineProperties(e, { requested: { value: requested, enumerable: true }, quota: { value: quota, enumerable: true } });
  return e;
}

// ProgressEvent is a browser class; Node has Event only.
const ProgressEventClass = typeof globalThis.ProgressEvent === 'function' ? globalThis.ProgressEvent : class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.lengthComputable = !!init.lengthComputable;
    this.loaded = init.loaded ?? 0;
    this.total = init.total ?? 0;
  }
};

// "Queue a global task": each callback runs in a task of its own, in the order queued, after the
// microtasks of the task that queued it (so that a page's reaction to one progress event, such as
// aborting, comes before the next event and before create() resolves). A MessageChannel rather than
// setTimeout: timers are clamped and throttled in background pages.
const post = typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate : (() => {
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()();
  return (callback) => {
    waiting.push(callback);
    channel.port2.postMessage(null);
  };
})();

function queueTask(callback) {
  return new Promise((resolve, reject) => post(() => {
    try {
      resolve(callback());
    } catch (e) {
      reject(e);
    }
  }));
}

// CreateMonitor (an EventTarget with the ondownloadprogress event handler): what `monitor` is given.
// The handler's listener is added when it is first set and keeps its place among the listeners, as
// HTML's event handlers do; a value that is not an object is null.
const monitors = defineInterface('CreateMonitor', {
  parent: EventTarget,
  attributes: {
    ondownloadprogress: {
      get: (state) => state.handler,
      set(state, value) {
        state.handler = (typeof value === 'function' || (typeof value === 'object' && value !== null)) ? value : null;
        if (state.handler && !state.listening) {
          state.target.addEventListener('downloadprogress', state.listener);
          state.listening = true;
        } else if (!state.handler && state.listening) {
          state.target.removeEventListener('downloadprogress', state.listener);
          state.listening = false;
        }
      },
    },
  },
});

/** The CreateMonitor interface object. */
export const CreateMonitor = monitors.Interface;

function newMonitor() {
  const state = { handler: null, listening: false, target: null, listener: null };
  state.listener = function (event) {
    if (typeof state.handler === 'function') return state.handler.call(this, event);
  };
  state.target = monitors.make(state);
  return state.target;
}

function checkSignal(signal, where) {
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError(`${where}: signal must be an AbortSignal`);
}

/**
 * Progress as the spec reports it: fractions of the bytes to download, floored to 1/65536, at most
 * every 50 ms, never the same twice in a row, and always 1 at the end.
 */
export function progressReporter(fire) {
  let last = -1, lastTime = 0;
  return (bytesSoFar, totalBytes) => {
    const now = performance.now();
    const done = bytesSoFar >= totalBytes;
    if (!done && last >= 0 && now - lastTime <= 50) return;
    const fraction = done ? 1 : Math.floor((bytesSoFar / totalBytes) * 65536) / 65536;
    if (fraction === last) return;
    last = fraction;
    lastTime = now;
    fire(fraction);
  };
}

/**
 * create() of a model API ("create an AI model object"). `options` as given; `steps`:
 *   feature                 the policy-controlled feature ("translator", "language-detector")
 *   validate(options)       -> canonical options (throws TypeError/RangeError)
 *   availability(options)   -> Promise<Availability> (may replace tags by their best fit)
 *   unsupportedMessage(options) -> the NotSupportedError's message
 *   prepare(options, onBytes, signal) -> Promise<resource>: what the model object needs, downloaded
 *                             where it must be (onBytes(soFar, total) follows the download; null when
 *                             availability was "available") and loaded. A failure to download
 *                             rejects create() with a NetworkError.
 *   wrap(options, resource) -> { object, destroy(reason) }: the model object
 *   discard(resource)       frees a resource no model object took (create() was aborted)
 */
export async function createModelObject(options, steps) {
  const o = dictionary(options, 'create()');
  const { signal, monitor } = o;
  checkSignal(signal, 'create()');
  if (monitor !== undefined && typeof monitor !== 'function') throw new TypeError('create(): monitor must be a function');
  // Read now: the spec reads it in parallel, soon after; an activation lasts a few seconds, and the
  // availability below can take longer (a catalogue read).
  const activation = transientActivation();
  const canonical = steps.validate(o);
  if (signal?.aborted) throw signal.reason;
  if (!allowedToUse(steps.feature)) {
    throw domException('NotAllowedError', `create(): the permissions policy of this document does not allow "${steps.feature}"`);
  }

  let fire = () => {};
  let abortedDuringDownload = false;
  if (monitor) {
    const target = newMonitor();
    monitor(target);  // an exception rejects create()
    fire = (loaded) => {
      queueTask(() => {
        if (!abortedDuringDownload) target.dispatchEvent(new ProgressEventClass('downloadprogress', { loaded, total: 1, lengthComputable: true }));
      });
    };
  }
  if (signal?.aborted) throw signal.reason;

  let rejectOnAbort;
  const aborted = new Promise((_, reject) => { rejectOnAbort = reject; });
  const onAbort = () => {
    abortedDuringDownload = true;
    rejectOnAbort(signal.reason);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([aborted, (async () => {
      const availability = await steps.availability(canonical);
      if (signal?.aborted) throw signal.reason;
      if (availability === 'unavailable') throw domException('NotSupportedError', steps.unsupportedMessage(canonical));
      if (availability === 'downloadable' && activation === false) {
        throw domException('NotAllowedError', 'create(): the model must be downloaded first, which needs a user activation ' +
          '(call create() from a click or key press)');
      }
      let resource;
      if (availability === 'available') {
        fire(0);
        fire(1);
        resource = await steps.prepare(canonical, null, signal);
      } else {
        // The download goes on when create() is aborted (the spec does not cancel it: it pauses or
        // completes it), so that a later create() finds it done.
        const report = progressReporter(fire);
        report(0, 1);
        try {
          resource = await steps.prepare(canonical, report, signal);
        } catch (e) {
          if (signal?.aborted) throw signal.reason;
          if (e?.name === 'NotSupportedError') throw e;
          throw Object.assign(domException('NetworkError', `the download failed: ${e?.message ?? e}`), { cause: e });
        }
        report(1, 1);
      }
      // After the progress events, in a task of its own, as the spec resolves it.
      return queueTask(() => {
        if (signal?.aborted) {
          steps.discard?.(resource);
          throw signal.reason;
        }
        const model = steps.wrap(canonical, resource);
        // Aborting the signal later destroys the model, as the spec says.
        signal?.addEventListener('abort', () => model.destroy(signal.reason), { once: true });
        return model.object;
      });
    })()]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The state every model object shares (DestroyableModel): its destruction abort controller, and
 * running an operation under the composite of the call's signal and that controller's.
 */
export class ModelState {
  #destruction = new AbortController();

  /** @param {() => void} release  frees what the object holds; called once, by destroy() */
  constructor(release = () => {}) {
    this.release = release;
  }

  /** "destroy": aborts the operations in progress and every later one with `reason`. */
  destroy(reason = domException('AbortError', 'the model was destroyed')) {
    if (this.#destruction.signal.aborted) return;
    this.#destruction.abort(reason);
    this.release();
  }

  get destroyed() { return this.#destruction.signal.aborted; }

  /** The signal of a call: aborted by the call's own signal or by destroy() (the spec's composite signal). */
  callSignal(signal) {
    return signal ? AbortSignal.any([this.#destruction.signal, signal]) : this.#destruction.signal;
  }

  /** A call's signal from its options (a dictionary), checked. */
  static signalOf(options, where) {
    const { signal } = dictionary(options, where);
    checkSignal(signal, where);
    return signal;
  }

  /**
   * Runs `operation(signal)` (a promise) for a call with `options.signal`: rejected with the
   * composite signal's reason when it is aborted already (destroy(): an AbortError, or what
   * create()'s signal was aborted with; the call's signal: its reason) or as soon as it aborts
   * while the operation runs.
   */
  async operation(name, options, operation) {
    const composite = this.callSignal(ModelState.signalOf(options, `${name}()`));
    if (composite.aborted) throw composite.reason;
    let rejectOnAbort;
    const aborted = new Promise((_, reject) => { rejectOnAbort = reject; });
    const onAbort = () => rejectOnAbort(composite.reason);
    composite.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([aborted, (async () => {
        await null;  // in parallel: after the caller's synchronous code, as a task would be
        if (composite.aborted) throw composite.reason;
        return operation(composite);
      })()]);
    } finally {
      composite.removeEventListener('abort', onAbort);
    }
  }
}
