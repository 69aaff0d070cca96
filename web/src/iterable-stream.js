// A ReadableStream that `for await` can read in every browser. Chromium, Firefox and Node give
// ReadableStream.prototype an async iterator; WebKit (Safari, WebKitGTK) does not, and there
// `for await (const chunk of translator.translateStreaming(text))` throws a TypeError. The stream
// keeps its class: values() and [Symbol.asyncIterator] are set on the object itself, so that
// `instanceof ReadableStream` and Object.prototype.toString ('[object ReadableStream]') say what
// they say of any other stream.

/**
 * The stream, with values({preventCancel}) and [Symbol.asyncIterator]() where its prototype has
 * none, as the Streams standard defines them: the iterator locks the stream with a reader; leaving
 * the loop early cancels the stream (unless preventCancel) and releases the lock.
 * @template T
 * @param {ReadableStream<T>} stream
 * @returns {ReadableStream<T>}
 */
export function iterableStream(stream) {
  if (typeof stream[Symbol.asyncIterator] === 'function') return stream;
  const values = function values({ preventCancel = false } = {}) {
    return readerIterator(this, preventCancel);
  };
  for (const key of ['values', Symbol.asyncIterator]) {
    Object.defineProperty(stream, key, { value: values, writable: true, configurable: true, enumerable: false });
  }
  return stream;
}

async function* readerIterator(stream, preventCancel) {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (e) {
        finished = true;  // an errored stream is not cancelled: it has ended
        throw e;
      }
      if (step.done) {
        finished = true;
        return;
      }
      yield step.value;
    }
  } finally {
    // The loop was left early (break, return, a throw in its body): the stream is cancelled, as
    // the standard's iterator return() does.
    if (!finished && !preventCancel) await reader.cancel();
    reader.releaseLock();
  }
}
