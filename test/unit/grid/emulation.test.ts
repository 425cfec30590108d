// A workspace's emulation over a fake socket: only what changed is sent, a dropped field puts the
// browser's own back, nothing at all is sent for a browser that emulates nothing, and a command the
// browser lacks or a value it refuses is a 400 naming the field.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../../src/errors.ts";
import { BidiError } from "../../../src/grid/bidi.ts";
import { applyEmulation } from "../../../src/grid/emulation.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const browser = (refuse: Record<string, BidiError> = {}) =>
  new FakeSocket((m) => {
    if (refuse[m]) throw refuse[m];
    if (m === "browser.getUserContexts") return { userContexts: [{ userContext: "default" }] };
    if (m === "browsingContext.getTree") return { contexts: [{ context: "t", url: "https://a.test/x" }] };
    return {};
  });
const commands = (s: FakeSocket) =>
  s.sent.filter((c) => c.method.startsWith("emulation.") || c.method.startsWith("permissions."));

describe("emulation", () => {
  test("sends each changed field to every user context, a dropped one as null; a location grants the open pages", async () => {
    const s = browser();
    await applyEmulation(s.socket, { locale: "de-DE", timezone: "Asia/Tokyo" }, null);
    expect(commands(s)).toEqual([
      { method: "emulation.setLocaleOverride", params: { locale: "de-DE", userContexts: ["default"] } },
      {
        method: "emulation.setTimezoneOverride",
        params: { timezone: "Asia/Tokyo", userContexts: ["default"] },
      },
    ]);
    s.sent.length = 0;
    await applyEmulation(
      s.socket,
      { locale: "de-DE", geolocation: { latitude: 1, longitude: 2 }, offline: true },
      { locale: "de-DE", timezone: "Asia/Tokyo" },
    );
    expect(commands(s)).toEqual([
      { method: "emulation.setTimezoneOverride", params: { timezone: null, userContexts: ["default"] } },
      {
        method: "emulation.setGeolocationOverride",
        params: { coordinates: { latitude: 1, longitude: 2 }, userContexts: ["default"] },
      },
      {
        method: "emulation.setNetworkConditions",
        params: { networkConditions: { type: "offline" }, userContexts: ["default"] },
      },
      {
        method: "permissions.setPermission",
        params: { descriptor: { name: "geolocation" }, state: "granted", origin: "https://a.test" },
      },
    ]);
  });

  test("nothing changed, or nothing to emulate: the browser is not asked at all", async () => {
    const s = browser();
    await applyEmulation(s.socket, {}, null);
    await applyEmulation(
      s.socket,
      { media: { "prefers-color-scheme": "dark" } },
      { media: { "prefers-color-scheme": "dark" } },
    );
    expect(s.sent).toEqual([]);
  });

  test("a command the browser lacks, or a value it refuses: a 400 naming the field", async () => {
    const lacks = browser({
      "emulation.setTimezoneOverride": new BidiError("unknown command", "emulation.setTimezoneOverride"),
    });
    const err = await applyEmulation(lacks.socket, { timezone: "Asia/Tokyo" }, null).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      "emulate.timezone: this browser cannot emulate that (it does not implement BiDi's emulation.setTimezoneOverride); open the workspace's browser without it, or as chrome",
    );
    const refuses = browser({ "emulation.setNetworkConditions": new BidiError("invalid argument", "no") });
    const bad = await applyEmulation(refuses.socket, { offline: true }, null).catch((e) => e);
    expect(bad.message).toBe("offline: the browser refused the value: no");
  });
});
