// The `admin` route option: the credential for a route outside /admin (even one whose parser read
// its body), and no body but JSON, refused by the parser where the route reads one and by the
// option where it reads none.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { adminGuard, hasFolder, noWorkspace, workspaceExists } from "../../../src/admin/guard.ts";
import { unauthorized } from "../../../src/errors.ts";
import { bodyParser } from "../../../src/http/body.ts";
import { failureResponse } from "../../../src/http/json.ts";

function app() {
  const asked: string[] = [];
  const gate = {
    async admin(request: Request) {
      asked.push(new URL(request.url).pathname);
      if (request.headers.get("authorization") !== "Bearer t") throw unauthorized();
      return "bearer" as const;
    },
  };
  const http = new Elysia()
    .onError(({ code, error, request }) => failureResponse(code, error, request, { redact: (t) => t }))
    .use(adminGuard({ gate }))
    .post("/admin/reads", ({ body }) => Response.json(body), { admin: true, parse: bodyParser() })
    .post("/admin/reads-none", () => Response.json({ ok: true }), { admin: true })
    .post("/elsewhere", ({ body }) => Response.json(body), { admin: true, parse: bodyParser() });
  const send = async (path: string, type: string, body: string, auth = "Bearer t") => {
    const res = await http.handle(
      new Request(`http://127.0.0.1${path}`, {
        method: "POST",
        headers: { "content-type": type, "content-length": String(body.length), authorization: auth },
        body,
      }),
    );
    return { status: res.status, body: (await res.json()) as unknown };
  };
  return { asked, send };
}

const TAKES = "the body is of type text/plain: send it as application/json (Content-Type)";

test("a body that is not JSON is a 415, from the parser or from the option, in the same words", async () => {
  const { send } = app();
  expect(await send("/admin/reads", "text/plain", "{}")).toEqual({ status: 415, body: { error: TAKES } });
  expect(await send("/admin/reads-none", "text/plain", "{}")).toEqual({
    status: 415,
    body: { error: TAKES },
  });
  // Ordinary use: JSON passes both.
  expect(await send("/admin/reads", "application/json", '{"a":1}')).toEqual({ status: 200, body: { a: 1 } });
  expect(await send("/admin/reads-none", "application/json", "{}")).toMatchObject({ status: 200 });
});

test("outside /admin the option asks for the credential, even once the parser read the body", async () => {
  const { asked, send } = app();
  expect(await send("/elsewhere", "application/json", '{"a":1}', "Bearer wrong")).toMatchObject({
    status: 401,
  });
  expect(await send("/elsewhere", "application/json", '{"a":1}')).toEqual({ status: 200, body: { a: 1 } });
  // Under /admin the app's first hook asked already (src/app.ts): the option does not ask again.
  await send("/admin/reads", "application/json", "{}");
  expect(asked).toEqual(["/elsewhere", "/elsewhere"]);
});

test("a workspace is there by its record or, with none, by its folder under DATA_DIR/sessions", async () => {
  const dir = mkdtempSync(join(tmpdir(), "guard-"));
  try {
    mkdirSync(join(dir, "sessions", "folded"), { recursive: true });
    const records: Record<string, object> = { kept: {} };
    const lookup = (d: string | null) =>
      ({
        config: { data: { dir: d } },
        store: { get: async (k: string) => records[k] ?? null },
      }) as unknown as Parameters<typeof workspaceExists>[0];
    expect([
      hasFolder(lookup(dir), "folded"),
      hasFolder(lookup(dir), "kept"),
      hasFolder(lookup(null), "folded"),
    ]).toEqual([true, false, false]);
    const there = async (k: string) => workspaceExists(lookup(dir), k);
    expect([await there("kept"), await there("folded"), await there("nowhere"), await there("a..b")]).toEqual(
      [true, true, false, false],
    );
    expect([noWorkspace("x").status, noWorkspace("x").message]).toEqual([404, "no workspace x"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
