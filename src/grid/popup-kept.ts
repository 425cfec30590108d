// What a pop-up's opener wrote into it, kept across the reload Page.usable gives a pop-up Chromium's
// BiDi does not answer. Such a pop-up ignores every command addressed to its browsing context, but
// its sandbox realm, addressed by the realm's own id, answers: the body is read there before the
// reload, and what the opener appended to the page's own body is appended again after it (the
// reloaded page's own markup must start what was read, so a page that renders itself anew is left
// as it loads). Scripts in what is put back do not run; it is read and acted on as it was.

import { putKeptBack, readKept } from "../in-page/standalone.ts";
import type { BidiSocket } from "./bidi.ts";
import { SANDBOX } from "./bidi.ts";
import { callScript } from "./page-call.ts";

const CALL_MS = 2_000;

interface Kept {
  body: string;
  title: string;
}

const READ = String(readKept);
const PUT_BACK = String(putKeptBack);

/** The pop-up's body and title as its sandbox realm reads them, or null when it cannot be read. */
export async function readPopup(socket: BidiSocket, tab: string): Promise<Kept | null> {
  try {
    const { realms } = await socket.send(
      "script.getRealms",
      { context: tab, type: "window" },
      { timeoutMs: CALL_MS },
    );
    const realm = realms.find((r) => r.type === "window" && r.sandbox === SANDBOX)?.realm;
    if (!realm) return null;
    const reply = await callScript(
      socket,
      { functionDeclaration: READ, target: { realm }, awaitPromise: false, resultOwnership: "none" },
      { timeoutMs: CALL_MS },
    );
    if (reply.type !== "success" || reply.result.type !== "object") return null;
    const fields = new Map(
      (reply.result.value as [string, { value?: unknown }][]).map(([k, v]) => [k, String(v.value ?? "")]),
    );
    return { body: fields.get("body") ?? "", title: fields.get("title") ?? "" };
  } catch {
    // nothing read: the reload goes ahead as before
    return null;
  }
}

/** After the reload: what the opener appended, appended again. */
export async function putBack(socket: BidiSocket, tab: string, kept: Kept): Promise<void> {
  await callScript(
    socket,
    {
      functionDeclaration: PUT_BACK,
      target: { context: tab, sandbox: SANDBOX },
      arguments: [
        { type: "string", value: kept.body },
        { type: "string", value: kept.title },
      ],
      awaitPromise: false,
      resultOwnership: "none",
    },
    { timeoutMs: CALL_MS },
  ).catch(() => undefined);
}
