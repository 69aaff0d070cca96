// What a failed fetch() says, with its cause: Node's fetch rejects with "fetch failed" and keeps
// the reason in `cause` (undici: "getaddrinfo ENOTFOUND host", "connect ECONNREFUSED
// 127.0.0.1:9", several of them in an AggregateError), which the CLI's libcurl states at once
// ("Could not resolve host"). Browsers give no cause ("Failed to fetch").

/** The failure's message followed by its causes' messages (or codes), each once: "fetch failed: connect ECONNREFUSED 127.0.0.1:9". */
export function fetchFailure(error) {
  const parts = [error?.message || String(error)];
  let cause = error?.cause;
  for (let depth = 0; cause && depth < 4; depth++, cause = cause.cause) {
    const said = cause.message || cause.code || (Array.isArray(cause.errors) ? cause.errors.map((e) => e?.message || e?.code).join('; ') : '');
    if (said && !parts.includes(said)) parts.push(said);
  }
  return parts.join(': ');
}
