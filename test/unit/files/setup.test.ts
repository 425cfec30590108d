// The data dir is made when it does not exist yet, owner-only, whatever keeps the records: a server
// on Redis with a new DATA_DIR stopped at boot with a bare ENOENT writing its link key.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../../src/config/schema.ts";
import { LINK_KEY_FILE } from "../../../src/files/layout.ts";
import { setupFiles } from "../../../src/files/setup.ts";
import { Log } from "../../../src/log.ts";
import type { RecordStore } from "../../../src/store/types.ts";

const root = mkdtempSync(join(tmpdir(), "sf-files-setup-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a data dir that does not exist is made, owner-only, with its link key", () => {
  const config = defaultConfig();
  config.data.dir = join(root, "new", "data");
  const deps = {
    grid: {} as never,
    records: {} as RecordStore,
    now: () => 0,
    changed: () => {},
    log: new Log("error"),
  };
  const { store } = setupFiles(config, deps);
  expect(store).not.toBeNull();
  expect(statSync(config.data.dir).mode & 0o777).toBe(0o700);
  expect(existsSync(join(config.data.dir, LINK_KEY_FILE))).toBe(true);
});
