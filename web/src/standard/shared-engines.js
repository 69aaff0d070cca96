// One engine per language arc, shared by every standard Translator of the arc in this realm: one
// download of its models, one engine (a Worker with one copy of the weights), however many
// translators a page creates. A create() that comes while the arc is being loaded joins that load
// and follows its download from where it is (the spec's "bytes the user agent needs to download at
// the present time"). The engine is disposed when the last translator holding it is destroyed, and
// when a load completes that every create() waiting on it gave up.

export class SharedEngines {
  #start;
  #entries = new Map();

  /** @param {(arc, onBytes: (soFar: number, total: number) => void) => Promise<{dispose(): void}>} start  loads an arc's engine */
  constructor(start) {
    this.#start = start;
  }

  /** Whether the arc's engine is being loaded now. */
  loading(key) {
    const entry = this.#entries.get(key);
    return !!entry && !entry.engine;
  }

  /**
   * A hold on the arc's engine: { ready: Promise<engine>, release() }. `onBytes(soFar, total)`
   * follows the download this hold waits on (none once the engine is there). Every hold is released
   * once: when its translator is destroyed, or when its create() fails or is aborted.
   */
  hold(arc, onBytes = null) {
    let entry = this.#entries.get(arc.key);
    if (!entry) entry = this.#load(arc);
    entry.holds += 1;
    let listener = null;
    if (onBytes && !entry.engine) {
      // What was downloaded before this hold came is not its download.
      const base = entry.loaded;
      listener = (soFar, total) => {
        if (total > base) onBytes(soFar - base, total - base);
      };
      entry.listeners.add(listener);
    }
    let released = false;
    return {
      ready: entry.ready,
      release: () => {
        if (released) return;
        released = true;
        if (listener) entry.listeners.delete(listener);
        entry.holds -= 1;
        if (entry.holds === 0 && entry.engine) this.#drop(arc.key, entry);
      },
    };
  }

  #load(arc) {
    const entry = { holds: 0, engine: null, loaded: 0, listeners: new Set(), ready: null };
    entry.ready = this.#start(arc, (soFar, total) => {
      entry.loaded = soFar;
      for (const listener of entry.listeners) listener(soFar, total);
    });
    this.#entries.set(arc.key, entry);
    entry.ready.then((engine) => {
      entry.engine = engine;
      entry.listeners.clear();
      if (entry.holds === 0) this.#drop(arc.key, entry);
    }, () => {
      // A failed load is forgotten: the next create() tries again.
      entry.listeners.clear();
      if (this.#entries.get(arc.key) === entry) this.#entries.delete(arc.key);
    });
    return entry;
  }

  #drop(key, entry) {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    entry.engine.dispose();
  }
}
