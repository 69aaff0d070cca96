// The shared machinery of the web's model APIs (webmachinelearning/writing-assistance-apis,
// "Shared infrastructure"), on which Translator and LanguageDetector are built here: creating a
// model object (validation, availability, download with a monitor's progress, abort), the
// operations of a destroyable model (abort signals, destroy), and the DOMExceptions they reject with.
//
// Where this departs from the text: no permissions policy or user activation is asked for (a
// polyfill cannot see either), and a call on a destroyed object rejects with an InvalidStateError,
// as Chrome does, where the text reuses the AbortError that destroy() signalled (an operation
// running when destroy() is called still rejects with that AbortError).

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

/** What `monitor` is given: an EventTarget that receives `downloadprogress` ProgressEvents (loaded 0..1, total 1). */
export class CreateMonitor extends EventTarget {
  #handler = null;
  get ondownloadprogress() { return this.#handler; }
  set ondownloadprogress(handler) {
    if (this.#handler) this.removeEventListener('downloadprogress', this.#handler);
    this.#handler = typeof handler === 'function' ? handler : null;
    if (this.#handler) this.addEventListener('downloadprogress', this.#handler);
  }
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
 *   validate(options)      -> canonical options (throws TypeError/RangeError)
 *   availability(options)  -> Promise<Availability> (may replace tags by their best fit)
 *   download(options, onBytes, signal) -> Promise<void>: fetches what is missing, calling onBytes(soFar, total);
 *                             rejects (a NetworkError is made of it) when a download fails
 *   create(options)        -> Promise<model object> (the model's class, a Destroyable)
 */
export async function createModelObject(options, steps) {
  if (options !== undefined && (options === null || typeof options !== 'object'))
    throw new TypeError('create(): options must be an object');
  options ??= {};
  const { signal, monitor } = options;
  checkSignal(signal, 'create()');
  if (monitor !== undefined && typeof monitor !== 'function') throw new TypeError('create(): monitor must be a function');
  const canonical = steps.validate(options);
  if (signal?.aborted) throw signal.reason;

  let fire = () => {};
  if (monitor) {
    const target = new CreateMonitor();
    monitor(target);  // an exception rejects create()
    fire = (loaded) => {
      if (!signal?.aborted) target.dispatchEvent(new ProgressEventClass('downloadprogress', { loaded, total: 1, lengthComputable: true }));
    };
  }

  let rejectOnAbort;
  const aborted = new Promise((_, reject) => { rejectOnAbort = reject; });
  const onAbort = () => rejectOnAbort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([aborted, (async () => {
      const availability = await steps.availability(canonical);
      if (availability === 'unavailable') throw domException('NotSupportedError', steps.unsupportedMessage(canonical));
      if (availability === 'available') {
        fire(0);
        fire(1);
      } else {
        // The download goes on when create() is aborted (the spec does not cancel it: it pauses or
        // completes it), so that a later create() finds it done.
        const report = progressReporter(fire);
        report(0, 1);
        try {
          await steps.download(canonical, report, signal);
        } catch (e) {
          if (signal?.aborted) throw signal.reason;
          if (e?.name === 'NotSupportedError') throw e;
          throw Object.assign(domException('NetworkError', `the download failed: ${e?.message ?? e}`), { cause: e });
        }
        report(1, 1);
      }
      if (signal?.aborted) throw signal.reason;
      const model = await steps.create(canonical);
      if (signal?.aborted) {
        model.destroy();
        throw signal.reason;
      }
      // Aborting the signal later destroys the model, as the spec says.
      signal?.addEventListener('abort', () => model.destroy(signal.reason), { once: true });
      return model;
    })()]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * The part of a model object every API shares (DestroyableModel): destroy(), and running an
 * operation under the composite of the call's signal and the object's destruction.
 */
export class Destroyable {
  #destruction = new AbortController();

  /** Aborts the operations in progress (with an AbortError, or `reason`) and refuses later calls. */
  destroy(reason) {
    if (this.#destruction.signal.aborted) return;
    this.#destruction.abort(reason ?? domException('AbortError', 'the model was destroyed'));
    this.released();
  }

  /** Frees what the object holds; called once, by destroy(). */
  released() {}

  get destroyed() { return this.#destruction.signal.aborted; }

  /** The signal of a call: aborted by the call's own signal or by destroy(). */
  callSignal(signal) {
    return signal ? AbortSignal.any([this.#destruction.signal, signal]) : this.#destruction.signal;
  }

  /**
   * Runs `operation(signal)` (a promise) for a call with `options.signal`: refused after destroy()
   * (InvalidStateError) or when the signal is already aborted (its reason); rejected with the
   * reason as soon as either aborts while it runs.
   */
  async operation(name, options, operation) {
    if (options !== undefined && (options === null || typeof options !== 'object'))
      throw new TypeError(`${name}(): options must be an object`);
    const signal = options?.signal;
    checkSignal(signal, `${name}()`);
    if (this.destroyed) throw domException('InvalidStateError', `${name}(): the model was destroyed`);
    const composite = this.callSignal(signal);
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
