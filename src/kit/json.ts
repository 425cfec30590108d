// Narrowing values parsed from JSON (records, snapshots, flow files) before reading their fields.

/** A plain object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
