// Requests run one after another in the order they came, whoever made them. Each may carry an
// AbortSignal: aborting a queued request removes it; aborting the running one calls its
// `interrupt` (the Translator stops the engine's Worker). Either way the promise rejects at once
// with the signal's reason (an AbortError DOMException unless the caller gave another).
// A request may carry a key: supersede(key) rejects the requests with that key at once, the
// queued ones removed, the running one left to stop itself at its next chunk (its run() asks
// `abandoned()`), so that the engine is not interrupted.

export function abortReason(signal) {
  return signal.reason ?? new DOMException('The translation was aborted.', 'AbortError');
}

export class RequestQueue {
  constructor() {
    this.waiting = [];
    this.running = null;
  }

  get size() {
    return this.waiting.length + (this.running ? 1 : 0);
  }

  /**
   * @param {(request: {queuedMs: number}) => Promise<any>} run  does the work
   * @param {(reason: any) => void} interrupt  stops `run` while it is running
   * @param {AbortSignal} [signal]
   * @param {string|null} [key] what supersede() goes by
   */
  push(run, interrupt, signal, key = null) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const request = { run, interrupt, signal, key, resolve, reject, enqueued: performance.now(), settled: false, onAbort: null };
      if (signal) {
        request.onAbort = () => this.abort(request);
        signal.addEventListener('abort', request.onAbort, { once: true });
      }
      this.waiting.push(request);
      this.next();
    });
  }

  abort(request) {
    const reason = abortReason(request.signal);
    if (this.running === request) {
      this.settle(request, false, reason);
      request.interrupt(reason);
    } else {
      const i = this.waiting.indexOf(request);
      if (i >= 0) this.waiting.splice(i, 1);
      this.settle(request, false, reason);
    }
  }

  /**
   * Rejects the queued and running requests with this key with `reason`, at once. The running
   * one is not interrupted: its run() sees abandoned() and stops at its next chunk.
   */
  supersede(key, reason) {
    for (const request of this.waiting.filter((r) => r.key === key)) {
      this.waiting.splice(this.waiting.indexOf(request), 1);
      this.settle(request, false, reason);
    }
    if (this.running?.key === key) this.settle(this.running, false, reason);
  }

  /** Rejects everything (queued and running) with `reason`. */
  clear(reason) {
    for (const request of this.waiting.splice(0)) this.settle(request, false, reason);
    if (this.running) this.settle(this.running, false, reason);
  }

  settle(request, ok, value) {
    if (request.settled) return;
    request.settled = true;
    request.signal?.removeEventListener('abort', request.onAbort);
    if (ok) request.resolve(value);
    else request.reject(value);
  }

  async next() {
    if (this.running || this.waiting.length === 0) return;
    const request = this.waiting.shift();
    this.running = request;
    try {
      const value = await request.run({ queuedMs: performance.now() - request.enqueued, enqueued: request.enqueued,
        abandoned: () => request.settled });
      this.settle(request, true, value);
    } catch (e) {
      this.settle(request, false, e);
    } finally {
      this.running = null;
      this.next();
    }
  }
}
