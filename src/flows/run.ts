// Running a flow server-side: every step in one call, on the browser the call resolved. The history
// gets every safe page the run reached, in order, as the run goes: each step that reached a page (or
// asked for a change) is written before the next begins, so a server killed mid-run leaves the
// history at the last page reached; before a save_site_data step (and before an open or end step, or
// a reopen) what is pending is written too, so what comes next reads it. The call's settle write
// ends it: where the run ended.

import type { Change } from "../actions/effects.ts";
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import type { Stepped, Steps } from "../actions/steps.ts";
import { browserState } from "../browser/landing.ts";
import { messageOf, unavailable } from "../errors.ts";
import { keyNames } from "../secrets/catalogue.ts";
import type { SecretRef } from "../secrets/field.ts";
import { originOf, type SiteDataReport } from "../store/record.ts";
import type { BoundStep } from "./bind.ts";
import type { ParsedFlow } from "./lines.ts";
import type { RunReport, StepReport } from "./report.ts";
import type { Flow } from "./schema.ts";

/** Tools before which the pages reached so far are written, so the step reads their storage. */
const FLUSH_BEFORE: ReadonlySet<string> = new Set(["save_site_data"]);
/** How long a step that outlived the run's timeout may still finish before the call returns. */
const GRACE_MS = 5_000;

interface Here {
  url: string;
  title: string;
  /** The page may carry what a bound write typed: shown redacted, recorded nowhere. */
  withheld: boolean;
}

type Ran =
  | { kind: "done"; stepped: Exclude<Stepped, { gone: true }> }
  | { kind: "gone" }
  | { kind: "failed"; error: unknown }
  | { kind: "timeout"; finished: boolean };

/** A step's secret reference (`write` with `secret`), if it has one. */
function secretRef(input: Record<string, unknown>): SecretRef | null {
  const ref = input.secret;
  if (typeof ref !== "object" || ref === null) return null;
  const { name, key } = ref as Record<string, unknown>;
  return typeof name === "string" && typeof key === "string" ? { name, key } : null;
}

/**
 * 400 before anything runs when a step names a secret or key that neither the catalogue nor the
 * workspace (a person gave it, request_secret) has.
 */
export async function checkSecrets(
  services: ActionServices,
  workspace: string,
  parsed: ParsedFlow,
  bound: BoundStep[],
): Promise<void> {
  for (const step of bound) {
    const ref = secretRef(step.input);
    if (!ref) continue;
    const secret = services.secrets.get(ref.name) ?? (await services.personSecrets.get(workspace, ref.name));
    const at = ["steps", step.n - 1, "args", "secret"];
    if (!secret) {
      throw parsed.refuse(
        at,
        `there is no secret named ${ref.name}: GET /secrets or workspace://secrets lists them`,
      );
    }
    if (!keyNames(secret).includes(ref.key)) {
      throw parsed.refuse(
        at,
        `secret ${ref.name} has no key ${ref.key}: its keys are ${keyNames(secret).join(", ")}`,
      );
    }
  }
}

export async function runFlow(
  ctx: ActionContext,
  flow: Flow,
  bound: BoundStep[],
  name?: string,
): Promise<RunReport> {
  const steps = ctx.steps();
  const redactor = ctx.services.redactor;
  const redact = (text: string) => redactor.redact(text);
  const deadline = performance.now() + flow.timeout * 1000;

  // Safe pages reached, in order; those before `flushed` are written already.
  const reached: string[] = [];
  let flushed = 0;
  let pending: Change[] = [];
  let told: SiteDataReport | null = null;
  const flush = async () => {
    const urls = reached.slice(flushed);
    if (urls.length === 0 && pending.length === 0) return;
    const changes = pending;
    flushed = reached.length;
    pending = [];
    // The steps reported so far take the changes' fills (a save's receipt).
    const out = await steps.touch(urls, changes, { steps: reports });
    reports = out.result.steps as StepReport[];
    told = out.report ?? told;
  };

  const start = steps.browser ? await browserState(steps.browser) : { url: "", title: "" };
  let here: Here = { ...start, withheld: false };
  let reports: StepReport[] = [];
  let status: RunReport["status"] = "ok";

  for (const step of bound) {
    const left = deadline - performance.now();
    if (left <= 0) {
      status = "timeout";
      break;
    }
    if (ctx.signal.aborted) {
      status = "failed";
      break;
    }
    if (FLUSH_BEFORE.has(step.tool) || step.action.browser === "open" || step.action.browser === "end") {
      await flush();
    }
    const time = ctx.services.now();
    const began = performance.now();
    const run = (signal: AbortSignal) => steps.run(step.action, step.input, { signal });
    let ran = await within(left, run, ctx.signal);
    // Its browser was gone: what the run reached is written first, so the browser reopened for the
    // step opens on the run's last page.
    while (ran.kind === "gone") {
      ran = await flush().then(
        () => within(deadline - performance.now(), run, ctx.signal),
        (error): Ran => ({ kind: "failed", error }),
      );
    }
    const ms = Math.round(performance.now() - began);

    let page: (Here & { record: string }) | null = null;
    let result: unknown;
    let error: string | undefined;
    if (ran.kind === "done") {
      const { result: out, effects } = ran.stepped;
      const landed = effects.landed;
      pending.push(...effects.changes.map((c) => forStep(c, reports.length)));
      const at = await pageAfter(steps, step, out, here);
      if (at) {
        const withheld = landed === null || redactor.carries(at.url);
        page = { ...at, withheld, record: typeof landed === "string" ? landed : at.url };
      }
      if (step.return) result = redactAll(out, redact);
    } else {
      error =
        ran.kind === "failed"
          ? redact(messageOf(ran.error))
          : `the flow ran out of time during this step: its timeout is ${flow.timeout} s`;
      if (ran.kind === "failed" || ran.finished) {
        const at = steps.browser ? await browserState(steps.browser) : null;
        if (at?.url) page = { ...at, withheld: redactor.carries(at.url), record: at.url };
      }
    }

    let shown: string | undefined;
    if (page && page.url !== here.url) {
      // A step that moved the page: shown and recorded when safe, failed or not.
      if (!page.withheld) {
        shown = page.url;
        if (originOf(page.record)) reached.push(page.record);
      }
      here = page;
    } else if (page) {
      here = { ...here, title: page.title };
    }
    const entry: StepReport = {
      n: step.n,
      tool: step.tool,
      ok: ran.kind === "done",
      ...(shown !== undefined && { url: shown }),
      ...(result !== undefined && { result }),
      ...(error !== undefined && { error }),
      ms,
    };
    reports.push(entry);
    // The step's record, as a call's: where it left the page ([hidden] where what a secret typed
    // would show), with the screen of that page.
    await steps.record({
      action: step.action,
      args: step.args,
      time,
      ms,
      ended:
        ran.kind === "done"
          ? { ok: true, result: {} }
          : { ok: false, error: ran.kind === "failed" ? ran.error : unavailable(error ?? "") },
      step: {
        url: here.url,
        title: here.title,
        return: step.return,
        ...(name !== undefined && { flow: name }),
      },
    });
    ctx.progress(
      step.n,
      bound.length,
      `step ${step.n}/${bound.length} ${step.tool}: ${entry.ok ? "ok" : "failed"}`,
    );

    // The step's landing, settled now: a server killed later in the run keeps it.
    await flush();
    if (ran.kind === "timeout") {
      status = "timeout";
      break;
    }
    if (!entry.ok) {
      status = "failed";
      if (flow.onError === "stop") break;
    }
  }

  const report: RunReport = { status, steps: reports, url: redact(here.url), title: redact(here.title) };
  if (here.withheld) report.url_redacted = true;
  if (told) report.site_data = told;
  // The call's one settle write: the pages not flushed yet, then where the run ended unless withheld.
  ctx.effects.pages = [...reached.slice(flushed), here.withheld ? null : here.url];
  for (const change of pending) ctx.effects.change(change);
  return report;
}

/**
 * A step's change, its fill moved onto that step's entry of the run's report (the report is the
 * result the run's writes fill in): the fill's own work runs whether or not the step returns its result.
 */
function forStep(change: Change, n: number): Change {
  return (record, browser, fill) =>
    change(record, browser, (f) =>
      fill((result) => {
        const steps = result.steps as StepReport[] | undefined;
        const step = steps?.[n];
        if (!steps || !step) return result;
        const filled = f((step.result ?? {}) as Record<string, unknown>);
        if (step.result === undefined) return result;
        return { ...result, steps: steps.map((s, i) => (i === n ? { ...s, result: filled } : s)) };
      }),
    );
}

/** Where a finished step left the page: its result's url, or a read of the page for a page tool. */
async function pageAfter(
  steps: Steps,
  step: BoundStep,
  result: Record<string, unknown>,
  here: Here,
): Promise<{ url: string; title: string } | null> {
  if (typeof result.url === "string" && result.url) {
    const title = typeof result.title === "string" ? result.title : result.url === here.url ? here.title : "";
    return { url: result.url, title };
  }
  if (step.action.browser !== "page" || !steps.browser) return null;
  const at = await browserState(steps.browser);
  return at.url ? at : null;
}

/** Runs `fn` for at most `ms`; a step still running then is told to stop and given a short grace. */
async function within(
  ms: number,
  fn: (signal: AbortSignal) => Promise<Stepped>,
  outer: AbortSignal,
): Promise<Ran> {
  const ac = new AbortController();
  const relay = () => ac.abort();
  outer.addEventListener("abort", relay, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), ms);
  });
  const running: Promise<Ran> = fn(ac.signal).then(
    (stepped) => ("gone" in stepped ? { kind: "gone" } : { kind: "done", stepped }),
    (error) => ({ kind: "failed", error }),
  );
  try {
    const first = await Promise.race([running, expired]);
    if (first !== "expired") return first;
    ac.abort();
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<null>((resolve) => {
      graceTimer = setTimeout(() => resolve(null), GRACE_MS);
    });
    const late = await Promise.race([running, grace]);
    clearTimeout(graceTimer);
    return { kind: "timeout", finished: late !== null };
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", relay);
  }
}

/** `value` with every string passed through `redact`, in place (a result is the step's own object). */
function redactAll(value: unknown, redact: (s: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) value[i] = redactAll(v, redact);
  } else if (typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) obj[k] = redactAll(v, redact);
  }
  return value;
}
