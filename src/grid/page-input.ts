// Input on the page: its verbs (a click that checks where its press landed and reads where the page
// is after it, in as few round trips as that allows; keys, typed text, files), and the gestures as
// BiDi input actions they send (pointer moves and presses, key combos).
import type { Input } from "webdriver-bidi-protocol";
import type { Landing, NodeRef } from "./page-call.ts";
import { dialogOpenError } from "./page-dialogs.ts";
import { PagePort } from "./page-port.ts";

/** How long past the script timeout a caller's script, or a key sequence, may take. */
export const GRACE_MS = 10_000;

/** The pause before a key sequence's deadline, per key (typing is one BiDi command). */
export const KEY_MS = 20;

// BiDi key values are WebDriver's key codes; a newline is Enter and a tab is Tab, as sendKeys types them.
export function keysOf(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n?/g, "\n"))
    out.push(ch === "\n" ? "\uE007" : ch === "\t" ? "\uE004" : ch);
  return out;
}

export type { Landing };

const mouse = (actions: Input.PointerSourceAction[], id = "mouse"): Input.SourceActions => ({
  type: "pointer",
  id,
  parameters: { pointerType: "mouse" },
  actions,
});

const origin = (el: NodeRef) => ({ type: "element" as const, element: { sharedId: el.sharedId } });

/**
 * Where a pointer goes: an element's middle (or a point `dx`, `dy` from it), or a point of the
 * viewport. `watched`: the locating call already watches the element's next press (hitWatch).
 */
export type PointAt = (NodeRef & { dx?: number; dy?: number; watched?: boolean }) | { x: number; y: number };

const moveTo = (at: PointAt): Input.PointerSourceAction =>
  "sharedId" in at
    ? { type: "pointerMove", x: Math.round(at.dx ?? 0), y: Math.round(at.dy ?? 0), origin: origin(at) }
    : { type: "pointerMove", x: Math.round(at.x), y: Math.round(at.y), origin: "viewport" };

/** `count` presses at `at`, each held `holdMs` before its release (by the pointer `source`: the agent's mouse unless told). */
export function clickActions(
  at: PointAt,
  opts: { button?: number; count?: number; holdMs?: number; source?: string },
): Input.SourceActions {
  const button = opts.button ?? 0;
  const actions: Input.PointerSourceAction[] = [moveTo(at)];
  for (let i = 0; i < (opts.count ?? 1); i++) {
    actions.push({ type: "pointerDown", button });
    if (opts.holdMs) actions.push({ type: "pause", duration: Math.round(opts.holdMs) });
    actions.push({ type: "pointerUp", button });
  }
  return mouse(actions, opts.source);
}

/** What took a watched press instead of its element (hitSeen): absent when the press was its. */
export interface PressSeen {
  took?: string;
  ref?: string;
  /** False: no press reached the element's document (it landed on a page around its frame). */
  pressed?: boolean;
}

export interface ClickOptions {
  button?: number;
  count?: number;
  holdMs?: number;
  /** WebDriver key codes held during the click. */
  modifiers?: string[];
  /** Watch where an element's press lands (see PageInput.click). */
  checked?: boolean;
  /** Read where the page is after the click. */
  landing?: boolean;
}

export interface Clicked extends PressSeen {
  landing?: Landing;
}

/** What one action may cost the browser beyond its own duration (a move waits for the page: 18–45 ms seen). */
const ACTION_MS = 50;

/**
 * How long a source's actions may take, in ms: their own durations and ACTION_MS each (a command's
 * deadline adds it).
 */
export function actionsMs(sources: Input.SourceActions[]): number {
  let most = 0;
  for (const s of sources) {
    let ms = 0;
    for (const a of s.actions as { duration?: number }[]) ms += (a.duration ?? 0) + ACTION_MS;
    most = Math.max(most, ms);
  }
  return most;
}

/**
 * A pointer source with `modifiers` (WebDriver key codes) held by a keyboard source whose ticks
 * run alongside it: keys down, the pointer acts while they are held, keys up. The page's mouse
 * events carry ctrlKey, shiftKey, altKey, metaKey.
 */
export function withModifiers(pointer: Input.SourceActions, modifiers: string[]): Input.SourceActions[] {
  if (!modifiers.length || pointer.type !== "pointer") return [pointer];
  const pad = (n: number) => Array.from({ length: n }, () => ({ type: "pause" as const }));
  const n = modifiers.length;
  const keys: Input.KeySourceAction[] = [
    ...modifiers.map((value) => ({ type: "keyDown" as const, value })),
    ...pad(pointer.actions.length),
    ...[...modifiers].reverse().map((value) => ({ type: "keyUp" as const, value })),
  ];
  return [
    { type: "key", id: "keyboard", actions: keys },
    { ...pointer, actions: [...pad(n), ...pointer.actions, ...pad(n)] },
  ];
}

export function hoverActions(at: PointAt): Input.SourceActions {
  return mouse([moveTo(at)]);
}

/** A move to a point of the viewport, taking `duration` ms. */
const at = (x: number, y: number, duration = 0): Input.PointerSourceAction => ({
  type: "pointerMove",
  x: Math.max(0, Math.round(x)),
  y: Math.max(0, Math.round(y)),
  duration,
  origin: "viewport",
});

/**
 * A press at `from`, a walk in small steps to `to` (points of the viewport), a release there: what
 * a hand does, so a sortable list sees the pointer pass each item on the way and a text selection
 * grows as it goes.
 */
export function pathActions(
  from: { x: number; y: number },
  to: { x: number; y: number },
  holdMs = 0,
): Input.SourceActions {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const steps = Math.max(4, Math.min(30, Math.round(Math.hypot(dx, dy) / 15)));
  const actions: Input.PointerSourceAction[] = [at(from.x, from.y), { type: "pointerDown", button: 0 }];
  if (holdMs) actions.push({ type: "pause", duration: Math.round(holdMs) });
  // Past a library's drag threshold first (jQuery UI waits for 1 px and a moment).
  actions.push(at(from.x + Math.sign(dx || 1) * 3, from.y + Math.sign(dy || 1) * 3, 30));
  for (let i = 1; i <= steps; i++) actions.push(at(from.x + (dx * i) / steps, from.y + (dy * i) / steps, 15));
  actions.push({ type: "pause", duration: 60 }, at(to.x, to.y, 15), { type: "pointerUp", button: 0 });
  return mouse(actions);
}

/** Pixels between the moves a stroke makes on its way from point to point. */
const STROKE_STEP = 10;
/** The most moves one stroke makes: a longer one takes longer steps (each move costs ~20 ms). */
const STROKE_MOVES = 400;

/**
 * The pointer through `points` (of the viewport it moves in) in steps of at most STROKE_STEP pixels
 * (longer past STROKE_MOVES steps), so the page sees it pass continuously along each segment; `press`: pressed at the first point (held
 * `holdMs` there) and released at the last, as a drawn stroke or a drag is.
 */
export function strokeActions(
  points: { x: number; y: number }[],
  opts: { press: boolean; holdMs?: number },
): Input.SourceActions {
  const [first, ...rest] = points;
  if (!first) return mouse([]);
  const actions: Input.PointerSourceAction[] = [at(first.x, first.y)];
  if (opts.press) actions.push({ type: "pointerDown", button: 0 });
  if (opts.press && opts.holdMs) actions.push({ type: "pause", duration: Math.round(opts.holdMs) });
  let length = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as { x: number; y: number };
    const b = points[i] as { x: number; y: number };
    length += Math.hypot(b.x - a.x, b.y - a.y);
  }
  const step = Math.max(STROKE_STEP, length / STROKE_MOVES);
  let from = first;
  for (const to of rest) {
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const steps = Math.max(1, Math.ceil(Math.hypot(dx, dy) / step));
    for (let i = 1; i <= steps; i++) actions.push(at(from.x + (dx * i) / steps, from.y + (dy * i) / steps));
    from = to;
  }
  if (opts.press) actions.push({ type: "pause", duration: 30 }, { type: "pointerUp", button: 0 });
  return mouse(actions);
}

/** The wheel turned by `delta` (CSS pixels) over `at`: an element's point, or one of the viewport. */
export function wheelActions(at: PointAt, delta: { x: number; y: number }): Input.SourceActions {
  const where =
    "sharedId" in at
      ? { x: Math.round(at.dx ?? 0), y: Math.round(at.dy ?? 0), origin: origin(at) }
      : { x: Math.round(at.x), y: Math.round(at.y), origin: "viewport" as const };
  return {
    type: "wheel",
    id: "wheel",
    actions: [{ type: "scroll", ...where, deltaX: Math.round(delta.x), deltaY: Math.round(delta.y) }],
  };
}

/** Key presses: each combo's modifiers held around its key. */
export function keyActions(combos: { modifiers: string[]; key: string }[]): Input.KeySourceAction[] {
  const actions: Input.KeySourceAction[] = [];
  for (const c of combos) {
    for (const m of c.modifiers) actions.push({ type: "keyDown", value: m });
    actions.push({ type: "keyDown", value: c.key }, { type: "keyUp", value: c.key });
    for (const m of [...c.modifiers].reverse()) actions.push({ type: "keyUp", value: m });
  }
  return actions;
}

/** The page port with its input verbs: what a gesture sends, and what it reads back. */
export class PageInput extends PagePort {
  /**
   * One performActions in the element's context; a dialog it opens ends the wait (DialogOpened).
   * Actions that take time by their own durations (a hold, a long path) get that much more.
   */
  async perform(context: string, actions: Input.SourceActions[], timeoutMs?: number): Promise<void> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    const takes = actionsMs(actions);
    if (timeoutMs === undefined && takes > 2_000) timeoutMs = GRACE_MS + takes;
    await this.front();
    await this.send("input.performActions", { context, actions }, { timeoutMs, endsOnDialog: true });
  }

  /** Brings the agent's tab to the front when another may have taken it (a pop-up, a target=_blank link). */
  async front(): Promise<void> {
    const tab = this.where.tab;
    if (this.held.activeTab === tab) return;
    await this.send("browsingContext.activate", { context: tab }, { timeoutMs: 2_000 }).catch(
      () => undefined,
    );
    this.held.activeTab = tab;
  }

  /**
   * Clicks `count` times at `at` with `button`, each press held `holdMs`, `modifiers` held around
   * them. `checked`, on an element: its press is watched where it lands (armed here unless the
   * locating call did) and what took it is answered. `landing`: where the page is after it is read
   * too (see landing), in the same sandbox call as the check when both are in the agent's document.
   */
  async click(at: PointAt, opts: ClickOptions = {}): Promise<Clicked> {
    const el = "sharedId" in at ? at : null;
    const checked = opts.checked === true && el !== null;
    if (checked && !el.watched) await this.callIn(el.context, "hitWatch", el);
    await this.perform(
      el?.context ?? this.where.tab,
      withModifiers(clickActions(at, opts), opts.modifiers ?? []),
    );
    const inOne = checked && el.context === this.context && opts.landing === true;
    if (!inOne) {
      // A click that navigated or opened a dialog was the element's: nothing is left to read.
      const seen = checked ? await this.glance<PressSeen>(el.context, "hitSeen").catch(() => null) : null;
      if (!opts.landing || seen?.took || seen?.pressed === false) return seen ?? {};
      return { ...seen, landing: await this.landing() };
    }
    const landing = await this.landing("clickSeen");
    const { took, ref, pressed } = (landing.seen ?? {}) as PressSeen;
    return { took, ref, pressed, landing };
  }

  /**
   * A person's click at a point of the tab's viewport, by their own pointer, and where the tab is
   * after it, in one look (its url and title: empty when they cannot be told, a dialog or a gone tab).
   */
  async personClick(x: number, y: number, opts: { button?: number; count?: number }) {
    await this.perform(this.where.tab, [clickActions({ x, y }, { ...opts, source: "person-mouse" })]);
    return this.state().catch(() => ({ url: "", title: "" }));
  }

  /** The pointer to `at` (an element's point, or one of the tab's viewport), unpressed. */
  async hover(at: PointAt): Promise<void> {
    await this.perform("sharedId" in at ? at.context : this.where.tab, [hoverActions(at)]);
  }

  /** The wheel turned by `delta` over `at`. */
  async wheel(at: PointAt, delta: { x: number; y: number }): Promise<void> {
    await this.perform("sharedId" in at ? at.context : this.where.tab, [wheelActions(at, delta)]);
  }

  /** The pointer through `points` of `context`'s viewport (see strokeActions). */
  async stroke(
    context: string,
    points: { x: number; y: number }[],
    opts: { press: boolean; holdMs?: number },
  ) {
    await this.perform(context, [strokeActions(points, opts)]);
  }

  /** A press at `from`, walked to `to` and released there (see pathActions). */
  async drag(context: string, from: { x: number; y: number }, to: { x: number; y: number }, holdMs = 0) {
    await this.perform(context, [pathActions(from, to, holdMs)]);
  }

  /** Key presses in `context`: each combo's modifiers held around its key. */
  async keys(context: string, combos: { modifiers: string[]; key: string }[]): Promise<void> {
    const actions = keyActions(combos);
    await this.perform(
      context,
      [{ type: "key", id: "keyboard", actions }],
      GRACE_MS + actions.length * KEY_MS,
    );
  }

  /** Types `text` key by key into whatever has focus in `context`. */
  async type(context: string, text: string): Promise<void> {
    await this.keys(
      context,
      keysOf(text).map((key) => ({ modifiers: [], key })),
    );
  }

  async setFiles(el: NodeRef, files: string[]): Promise<void> {
    await this.send("input.setFiles", { context: el.context, element: { sharedId: el.sharedId }, files });
  }

  /** Marks the page for a gesture that located nothing (a key press on the page). */
  async arm(): Promise<void> {
    await this.call("arm");
  }
}
