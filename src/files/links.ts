// Signed links to stored files. A link names the workspace, the folder and the file, and carries an
// expiry and an HMAC-SHA256 over all four, so it needs no bearer token: whoever holds it may read
// that one file until it expires (a person opening it from the admin page, an agent handing it on).
// The key is made once and kept in DATA_DIR/.link-key (0600), so links survive a restart; without a
// data dir it is random per process.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeOnce } from "../kit/write-once.ts";
import { LINK_KEY_FILE } from "./layout.ts";

export type LinkFolder = "files" | "screenshots" | "recordings" | "downloads";
export const LINK_FOLDERS: readonly LinkFolder[] = ["files", "screenshots", "recordings", "downloads"];
/** Where signed links are served: `/file/<workspace>/<folder>/<name>`, */
export const LINK_PREFIX = "/file";
/** and a recording's as the reference has it: `/recordings/<workspace>/<name>`. */
export const RECORDING_PREFIX = "/recordings";

export type Verdict = "ok" | "expired" | "bad";

const KEY_BYTES = 32;

/** The server's link key: read from the data dir, made there once, or random without one. */
export function linkKey(dataDir: string | null): Uint8Array {
  if (!dataDir) return randomBytes(KEY_BYTES);
  const path = join(dataDir, LINK_KEY_FILE);
  const read = () => {
    const hex = readFileSync(path, "utf8").trim();
    if (!/^[0-9a-f]{64}$/.test(hex))
      throw new Error(`${path} is not a link key: delete it to make a new one`);
    return Buffer.from(hex, "hex");
  };
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  // Another process may make it first: then its key is read.
  writeOnce(path, `${randomBytes(KEY_BYTES).toString("hex")}\n`);
  return read();
}

export class LinkSigner {
  constructor(
    private readonly key: Uint8Array,
    /** Seconds a link lives (files.link_ttl). */
    readonly ttl: number,
    /** Epoch seconds. */
    private readonly now: () => number,
  ) {}

  /** The signed path for one file: `/file/<workspace>/<folder>/<name>?expires=…&sig=…` (a recording's: `/recordings/<workspace>/<name>?…`). */
  sign(workspace: string, folder: LinkFolder, name: string): string {
    const expires = Math.floor(this.now()) + this.ttl;
    const sig = this.mac(workspace, folder, name, expires);
    const ws = encodeURIComponent(workspace);
    const file = encodeURIComponent(name);
    const path =
      folder === "recordings"
        ? `${RECORDING_PREFIX}/${ws}/${file}`
        : `${LINK_PREFIX}/${ws}/${folder}/${file}`;
    return `${path}?expires=${expires}&sig=${sig}`;
  }

  verify(
    workspace: string,
    folder: string,
    name: string,
    expires: string | null,
    sig: string | null,
  ): Verdict {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return "bad";
    const want = Buffer.from(this.mac(workspace, folder, name, Number(expires)));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return "bad";
    return Number(expires) < this.now() ? "expired" : "ok";
  }

  /** Seconds until a link expires (its cache lifetime). */
  freshFor(expires: string): number {
    return Math.max(0, Math.floor(Number(expires) - this.now()));
  }

  private mac(workspace: string, folder: string, name: string, expires: number): string {
    return createHmac("sha256", this.key)
      .update(`${workspace}\n${folder}\n${name}\n${expires}`)
      .digest("base64url");
  }
}
