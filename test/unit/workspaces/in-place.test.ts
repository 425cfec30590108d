// Which open_session calls change the live browser in place: only routes, offline and emulate; the
// browser's own settings (record and insecure too) stay.
import { describe, expect, test } from "bun:test";
import { OpenInput } from "../../../src/actions/shapes.ts";
import { inPlace } from "../../../src/workspaces/in-place.ts";
import { resolveSettings } from "../../../src/workspaces/settings.ts";

const live = {
  browser: "chrome" as const,
  width: 1280,
  height: 720,
  record: true,
  insecure: true,
  offline: true,
};
const change = (input: Record<string, unknown>) => {
  const req = OpenInput.parse(input);
  return inPlace(req, live, resolveSettings(req, live));
};

describe("a change in place", () => {
  test("routes, offline and emulate alone change the settings, the rest kept", () => {
    const c = change({ routes: [{ url: "*/api/*", body: "x" }], emulate: { locale: "de-DE" } });
    expect(c?.after).toEqual({
      ...live,
      routes: [{ url: "*/api/*", body: "x" }],
      emulate: { locale: "de-DE" },
    });
    expect(change({ offline: false })?.after).toEqual({
      browser: "chrome",
      width: 1280,
      height: 720,
      record: true,
      insecure: true,
    });
    expect(change({ routes: [], restore_site_data: true })?.after.routes).toBeUndefined();
  });

  test("with any other field, or none, the browser is replaced as always", () => {
    expect(change({ routes: [], url: "https://a.test/" })).toBeNull();
    expect(change({ offline: true, restore_site_data: false })).toBeNull();
    expect(change({ emulate: {}, width: 800 })).toBeNull();
    expect(change({})).toBeNull();
  });
});
