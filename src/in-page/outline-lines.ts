// Lines of the outline: a walked line's text tidied, a long line cut into several, a URL as one word.

/** A line longer than this (characters, an element counting LINE_EL) is cut into several. */
const LINE_CAP = 1000;
const LINE_EL = 60;

/** Adjacent text joined, white space collapsed, the line trimmed (and a table row's last " |"). */
export function tidy(segs: (string | Element)[]): (string | Element)[] {
  const out: (string | Element)[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (typeof s === "string" && typeof last === "string") out[out.length - 1] = last + s;
    else out.push(s);
  }
  for (let i = 0; i < out.length; i++) {
    const s = out[i];
    if (typeof s === "string") out[i] = s.replace(/\s+/g, " ");
  }
  const first = out[0];
  if (typeof first === "string") out[0] = first.trimStart();
  const last = out[out.length - 1];
  if (typeof last === "string") out[out.length - 1] = last.replace(/[\s|]+$/, "").trimEnd();
  return out.filter((s) => typeof s !== "string" || s.trim() !== "" || s === " ");
}

/** A line cut into pieces of about LINE_CAP, text at a space. */
export function split(line: (string | Element)[]): (string | Element)[][] {
  const parts: (string | Element)[][] = [];
  let cur: (string | Element)[] = [];
  let size = 0;
  const push = () => {
    const t = tidy(cur);
    if (t.some((s) => typeof s !== "string" || s.trim())) parts.push(t);
    cur = [];
    size = 0;
  };
  for (const s of line) {
    if (typeof s !== "string") {
      if (size + LINE_EL > LINE_CAP) push();
      cur.push(s);
      size += LINE_EL;
      continue;
    }
    let rest = s;
    while (size + rest.length > LINE_CAP) {
      const room = LINE_CAP - size;
      if (room > 0) {
        const space = rest.lastIndexOf(" ", room);
        const at = space > 0 ? space : room;
        cur.push(rest.slice(0, at));
        rest = rest.slice(at);
      }
      push();
    }
    if (rest) {
      cur.push(rest);
      size += rest.length;
    }
  }
  push();
  return parts;
}

/** A URL as one word: what the browser makes of its white space, and brackets that would read as a ref. */
export function urlWord(url: string): string {
  return url
    .trim()
    .replace(/[\t\n\r]/g, "")
    .replace(/[ [\]]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
