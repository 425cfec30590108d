// Input on the page: its verbs, as Playwright's `Tab` has them. A click takes the element as the
// agent named it (a `Query`): it locates it (one sandbox call per poll, waiting for it to come), aims
// at the part that shows, presses, checks where the press landed and reads where the page is after
// it, in as few round trips as that allows. Keys, typed text, files; the BiDi input actions they
// send are input-actions.ts's.
import { Key } from "selenium-webdriver";
import type { Input } from "webdriver-bidi-protocol";
import { badInput } from "../errors.ts";
import type { Found } from "../in-page/selectors.ts";
import {
  actionsMs,
  clickActions,
  hoverActions,
  keyActions,
  keysOf,
  type PointAt,
  pathActions,
  strokeActions,
  wheelActions,
  withModifiers,
} from "./input-actions.ts";
import type { Landing, NodeRef, PageFn } from "./page-call.ts";
import { DialogOpened, dialogOpenError, TabClosed } from "./page-dialogs.ts";
import {
  type Asker,
  coveredError,
  type FieldMatch,
  type FoundField,
  frameHolding,
  frameSentence,
  keeping,
  type Located,
  type Missed,
  noteLocator,
  notMatched,
} from "./page-found.ts";
import { PagePort } from "./page-port.ts";

/** How long past the script timeout a caller's script, or a key sequence, may take. */
export const GRACE_MS = 10_000;

/** The pause before a key sequence's deadline, per key (typing is one BiDi command). */
export const KEY_MS = 20;

export type { Landing, Located, PointAt };

/** What a locating script reports; scripts may add their own fields. */
export interface PageMatch {
  total: number;
  visible: number;
  invalid?: Found["invalid"];
}

/**
 * An element as an action names it, ready for the page (as Playwright's locator): the selector in
 * the page library's shape, how to wait for it, and what a 400 calls it.
 */
export interface Query extends Missed {
  /** The selector as the agent gave it: the key its kept locator is noted under. */
  given: object;
  /** The document a ref leads to (read_page noted it, a frame of the tab maybe), else the agent's. */
  context?: string;
  /** Wait for a visible match (for what the user acts on); otherwise any match will do. */
  visible?: boolean;
  /** Scroll the element to the middle of the window (pointer actions need it in view). */
  scroll?: boolean;
  /** No match when the wait runs out is an answer (total 0), not the "nothing matched" 400. */
  allowNone?: boolean;
}

/** What `seek` works with: the sandbox calls, and where the call's kept locators go. */
export interface Seeking extends Asker {
  readonly located: Located[];
  armingIn<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T>;
}

const POLL_MS = [0, 50, 100, 200, 250];
/**
 * How long a selector may match nothing here before the frames are asked once: a match in one of
 * them (a payment or sign-in frame from another host) ends the wait, as nothing here would.
 */
const FRAMES_AFTER_MS = 1_000;

const ready = (got: PageMatch, visible: boolean | undefined) => (visible ? got.visible > 0 : got.total > 0);

/**
 * Runs a locating `script` (a page function called as `script(selector, args)`) until it reports a
 * match (a visible one with `visible`) or the timeout runs out; then the "nothing matched" 400,
 * unless `allowNone`. Each poll also marks the page for the gesture that follows (in-page/leaving.ts).
 */
export async function seek<T extends PageMatch>(
  page: Seeking,
  q: Query,
  script: PageFn = "located",
  args: Record<string, unknown> = {},
): Promise<T> {
  const { sel, field } = q;
  const start = Date.now();
  const deadline = start + q.timeout * 1000;
  const all = { max: 1, scroll: q.scroll === true, visible: q.visible === true, ...args };
  // Waiting for a match to come (allowNone) is not cut short by one elsewhere.
  const framed = { asked: q.allowNone === true, path: null as (string | null)[] | null };
  // A ref's document is looked for first; one whose frame went is looked for here, and said so.
  let context = q.context ?? page.context;
  const [fn, ...first] = keeping(script, sel);
  let got: T;
  for (let i = 0; ; i++) {
    got = await page.armingIn<T>(context, fn, ...first, sel, all).catch((err: unknown) => {
      if (context === page.context) throw err;
      context = page.context;
      return page.armingIn<T>(context, fn, ...first, sel, all);
    });
    if (got.invalid?.kind === "ref")
      throw badInput(got.invalid.reason, `${field}${got.invalid.within ? ".within" : ""}.ref`);
    if (got.invalid) {
      const kind = got.invalid.kind;
      throw badInput(
        `field "${field}.${kind}" is not a valid ${kind === "css" ? "CSS selector" : "XPath expression"}: ${got.invalid.reason}`,
        `${field}.${kind}`,
      );
    }
    if (ready(got, q.visible) || Date.now() >= deadline) break;
    if (!framed.asked && got.total === 0 && Date.now() - start >= FRAMES_AFTER_MS) {
      framed.asked = true;
      framed.path = await frameHolding(page, sel).catch(() => null);
      if (framed.path)
        throw badInput(
          `nothing matched ${q.quoted} in this document. ${frameSentence(framed.path)} Call read_page to see the page and its selectors`,
          field,
        );
    }
    const wait = POLL_MS[Math.min(i + 1, POLL_MS.length - 1)] as number;
    await Bun.sleep(Math.max(0, Math.min(wait, deadline - Date.now())));
  }
  if (!ready(got, q.visible) && !q.allowNone) throw await notMatched(page, q, got.total, framed.asked);
  // A ref's element, as a locator a kept flow can use (page-found.ts).
  noteLocator(page.located, q.given, got);
  return got;
}

/** What the aim's locating call reports (in-page pointerTarget). */
interface Aimed extends PageMatch {
  els: NodeRef[];
  /** What covers the whole element, where the pointer would go (a click would reach it). */
  cover?: string | null;
  /** The frame that shows none of it (clipped, shrunk or covered where it is), when that is why. */
  frame?: string;
  /** The visible point aimed at, from the element's in-view centre. */
  dx?: number;
  dy?: number;
  /** Its press is watched already (asked with `watch`). */
  watched?: boolean;
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
  /** How the 400s of a checked press name the element given as a node (a Query names itself). */
  quoted?: string;
  /** Where the press began: the navigations begun before it, set as it goes (landing.ts `Press`). */
  press?: { before: number };
}

/** An error met before the press, said as itself: not a dialog or a closed tab the press caused. */
function undelivered(err: unknown): never {
  if (err instanceof DialogOpened) throw dialogOpenError(err.prompt);
  if (err instanceof TabClosed) throw badInput(err.message);
  throw err;
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
   * The selectors this call resolved that named their element by ref, each with the locator read
   * for that element as it was resolved (page-found.ts); the call's timeline entry keeps them, and
   * a run kept as a flow uses them in place of the refs.
   */
  readonly located: Located[] = [];

  /**
   * The element a pointer gesture goes to, in view, with the visible point aimed at (from its
   * middle); a 400 when something else covers all of it, or its frame shows none of it. `watch` (a
   * click): the same call starts watching where its press lands.
   */
  async aim(q: Query, watch = false): Promise<NodeRef & { dx: number; dy: number; watched: boolean }> {
    const got = await seek<Aimed>(this, q, "pointerTarget", watch ? { watch } : {});
    if (got.frame)
      throw badInput(
        `${q.quoted} is in a frame that shows none of it: the frame ${got.frame} is clipped, shrunk or covered where the element is, so a click there would land on ${got.cover} around the frame, and nothing was clicked. Give it the keyboard instead (interact focus, then press Enter), or open the frame's own page (read_page lists its url)`,
        q.field,
      );
    if (got.cover !== undefined) throw coveredError(q.quoted, got.cover, q.field);
    return { ...(got.els[0] as NodeRef), dx: got.dx ?? 0, dy: got.dy ?? 0, watched: got.watched === true };
  }

  /**
   * Clicks `count` times at `at` (an element to locate and aim at, an element found, or a point of
   * the viewport) with `button`, each press held `holdMs`, `modifiers` held around them. `checked`,
   * on an element: its press is watched where it lands (armed by the locating call, else here), and
   * one another element took, or one that never reached the element's document, is a 400. `landing`:
   * where the page is after it is answered too (see landing), in the same sandbox call as the check
   * when both are in the agent's document.
   */
  async click(at: Query | PointAt, opts: ClickOptions = {}): Promise<Landing | undefined> {
    const quoted = "quoted" in at ? at.quoted : opts.quoted;
    // A dialog or a gone tab met while locating is no press delivered (landing.ts `delivered`).
    const aimed = "sel" in at ? await this.aim(at, opts.checked).catch(undelivered) : at;
    const el = "sharedId" in aimed ? aimed : null;
    const checked = opts.checked === true && el !== null;
    if (opts.press) opts.press.before = this.held.navigationCount;
    if (checked && !el.watched) await this.callIn(el.context, "hitWatch", el);
    await this.perform(
      el?.context ?? this.where.tab,
      withModifiers(clickActions(aimed, opts), opts.modifiers ?? []),
    );
    let seen: PressSeen | null = null;
    let landing: Landing | undefined;
    if (checked && el.context === this.context && opts.landing === true) {
      landing = await this.landing("clickSeen");
      seen = (landing.seen ?? {}) as PressSeen;
    } else if (checked) {
      // A click that navigated or opened a dialog was the element's: nothing is left to read.
      seen = await this.glance<PressSeen>(el.context, "hitSeen").catch(() => null);
    }
    // No press reached the element's document at all: it went to a page around its frame.
    if (seen?.pressed === false)
      throw badInput(
        `${quoted} did not get the click: the press landed outside its frame (one clipped, shrunk or covered where the element is), so the page never saw it. Give it the keyboard instead (interact focus, then press Enter), or open the frame's own page (read_page lists its url)`,
        "selector",
      );
    if (seen?.took)
      throw badInput(
        `${quoted} did not get the click: the press landed on ${seen.took}, so it was stopped before the page saw it. Call read_page and act on what shows there now${seen.ref ? ` (that element is {"ref": "${seen.ref}"})` : ""}, or wait for the page to settle`,
        "selector",
      );
    if (opts.landing && !landing) landing = await this.landing();
    return landing;
  }

  /**
   * The field `q` names, waited for; a 400 for what is no field or cannot be typed into. `insert`:
   * the agent's text, put in by the same call where the field takes it (in-page/fields.ts).
   */
  async field(q: Query, insert?: { text: string; clear: boolean }): Promise<FoundField> {
    const field = await seek<FieldMatch & PageMatch>(this, q, "fieldTarget", insert ? { insert } : {});
    if (field.problem)
      throw badInput(
        `${q.quoted} is a <${field.problem}>, not a field you can type into: name the input itself (read_page lists the fields), or use interact for selects, checkboxes and buttons`,
        "selector",
      );
    if (field.locked) throw badInput(`${q.quoted} is ${field.locked}: it cannot be typed into`, "selector");
    return field as FoundField;
  }

  /**
   * Sends `field`'s form: Enter in it, only while it holds the focus (refused if the page moved it
   * away); a textarea's or a rich editor's form is submitted instead. `quoted` names it in a 400.
   */
  async submit(field: FoundField, quoted: string): Promise<void> {
    const el = field.field;
    if (field.kind === "input") {
      if (!(await this.callIn<boolean>(el.context, "focusField", el)))
        throw badInput(
          `${quoted} lost the focus before Enter, so the form was not sent: give submit the page's send button instead`,
          "submit",
        );
      return this.keys(el.context, [{ modifiers: [], key: Key.ENTER }]);
    }
    if (!(await this.callIn<boolean>(el.context, "submitForm", el)))
      throw badInput(
        `${quoted} is a ${field.kind === "textarea" ? "textarea" : "rich text field"} outside any form, so submit has nothing to send: give submit the page's send button instead`,
        "submit",
      );
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
