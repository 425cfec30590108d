// chromedriver never answers a BiDi command whose reply holds an unpaired UTF-16 surrogate (it
// cannot parse the mapper's message): a page title or text such as "a\uD800b" read by one of the
// server's own scripts would hang that command until its deadline. So every function the server
// calls in the sandbox returns its result (and a thrown message) made well-formed: each lone
// surrogate replaced with U+FFFD, in strings, object keys, arrays and plain objects. A result with
// none is handed back as it was (the same objects). The agent's own scripts run as they are.

/** Returns `v` with every string (and plain-object key) well-formed; the same value when it was. */
const WELL_FORMED = `(v) => {
  const seen = new Set();
  const fix = (x, depth) => {
    if (typeof x === "string") return x.isWellFormed() ? x : x.toWellFormed();
    if (!x || typeof x !== "object" || depth > 64 || seen.has(x)) return x;
    const proto = Object.getPrototypeOf(x);
    const array = Array.isArray(x);
    if (!array && proto !== Object.prototype && proto !== null) return x;
    seen.add(x);
    let out = x;
    for (const k of array ? x.keys() : Object.keys(x)) {
      const was = x[k];
      const now = fix(was, depth + 1);
      const key = typeof k === "string" && !k.isWellFormed() ? k.toWellFormed() : k;
      if (now === was && key === k) continue;
      if (out === x) out = array ? [...x] : { ...x };
      if (key !== k) delete out[k];
      out[key] = now;
    }
    return out;
  };
  return fix(v, 0);
}`;

/** `fn` (a function declaration) wrapped so its result and a thrown message are well-formed. */
export function wellFormed(fn: string): string {
  return `function (...args) {
  const wf = ${WELL_FORMED};
  const bad = (e) => {
    if (typeof e === "string") throw wf(e);
    try {
      if (e && typeof e.message === "string" && !e.message.isWellFormed()) e.message = e.message.toWellFormed();
    } catch {}
    throw e;
  };
  let r;
  try {
    r = (${fn}).apply(this, args);
  } catch (e) {
    bad(e);
  }
  return r && typeof r.then === "function" ? r.then(wf, bad) : wf(r);
}`;
}

/** A command's params with a sandbox call of the server's own made well-formed (the agent's are sent as they are). */
export function ownCall(method: string, params: unknown): unknown {
  if (method !== "script.callFunction") return params;
  const p = params as { functionDeclaration: string; target?: { sandbox?: string } };
  return p.target?.sandbox ? { ...p, functionDeclaration: wellFormed(p.functionDeclaration) } : params;
}
