// A gesture of interact: one definition each (or one for a family: click, double_click, right_click,
// hover), holding its branch of interact's input (the fields it takes and its rules across them),
// what its result adds, the docs line that says what it does, and its handler. interact.ts lists
// them; its one input schema is the union of their branches, a field several of them take being one
// schema (declared here), and an input is checked by the branch its action names.
import { z } from "zod";
import type { ActionContext } from "../../actions/ports.ts";
import { type Problem, ruled } from "../../actions/validate.ts";
import type { Page } from "../../grid/page.ts";
import type { Press } from "../landing.ts";
import { Selector } from "../selectors.ts";

/** What a gesture's handler is handed. */
export interface GestureCall<I> {
  ctx: ActionContext;
  page: Page;
  input: I;
  /**
   * Its press, written by the gesture as it makes what the page sees (the pointer, the keys, the
   * event): `before` just ahead of it, and a click's own read after it. A press that threw is passed
   * to `delivered` (landing.ts): a dialog it opened ends the gesture; interact's `landed` then waits
   * for a navigation it started and says where it left the page.
   */
  press: Press;
}

/** Adds an issue at `field` (a message that starts "must …"). */
export type Issue = (field: string, message: string) => void;

/** A rule across an input's fields. */
type Rule<I> = (input: I, issue: Issue) => void;

type Fields = Record<string, z.ZodType>;
type Result<O extends Fields> = Partial<z.infer<z.ZodObject<O>>>;
type InputOf<A extends string, F extends Fields> = z.infer<z.ZodObject<F>> & { action: A; timeout: number };

export interface Gesture<A extends string = string, F extends Fields = Fields, O extends Fields = Fields> {
  /** The action names it answers to. */
  actions: readonly [A, ...A[]];
  /** Its branch: the fields it takes besides action and timeout, each optional (check says which it needs). */
  fields: F;
  /** What its result carries besides the page's url and title. */
  output?: O;
  /** The readers' line on what it does (interact's docs list every gesture's). */
  docs: string;
  /**
   * Its rules across fields: what it needs, what excludes what; its own, or shared ones named from
   * here (checked without leaving this module).
   */
  check?: Rule<InputOf<A, F>> | readonly Rule<InputOf<A, F>>[];
  run(call: GestureCall<InputOf<A, F>>): Promise<Result<O> | undefined>;
}

export function defineGesture<A extends string, F extends Fields, O extends Fields = Record<never, never>>(
  g: Gesture<A, F, O>,
): Gesture<A, F, O> {
  return g;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds gestures of every branch
export type AnyGesture = Gesture<any, any, any>;

type Both<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** interact's input as its gestures make it: every action, every field of every branch, timeout. */
type InputShape<G extends readonly AnyGesture[], T extends z.ZodType> = {
  action: z.ZodEnum<{ [A in G[number]["actions"][number]]: A }>;
  timeout: T;
} & Both<G[number]["fields"]>;

// ---- the fields several gestures take -------------------------------------------------------------

export const selectorField = Selector.optional().describe("The element (press: optional).").meta({
  docs: "The element to act on (required, except for press, which without it goes to the focused element, and for the gestures that take x and y instead).",
});

export const targetField = Selector.optional().describe("drag, select_text: where it ends.").meta({
  docs: "drag: the element to drop onto (its middle, or position/offset by it). select_text: the text match where the selection ends (selector is where it starts).",
});

const coord = () => z.number().min(0).optional();

export const xField = coord().describe("With y: viewport point.").meta({
  docs: "click, double_click, right_click, hover: a point of the tab's viewport (CSS pixels from its top left) instead of a selector: canvases, maps. drag: the point where it ends, instead of a target. scroll with offset: where the wheel turns. read_page boxes: true and extract get box give elements' boxes.",
});

export const yField = coord().meta({ docs: "With x: the point's distance from the viewport's top." });

const point = () => z.strictObject({ x: z.number(), y: z.number() });

export const offsetField = point()
  .optional()
  .describe("drag: end {x, y} from target's top left; scroll: wheel by it.")
  .meta({
    docs: "drag with target: end at this point from the target's top left corner, {x, y} in CSS pixels. scroll: turn the wheel by this much (CSS pixels, y down and x right; negative goes back) over the element, or over the point x, y, so the element's own scroll area scrolls (an inner box, a list, a map), not the page; without it scroll brings the element into view.",
    shared: true,
  });

export const pathField = z
  .array(point())
  .min(1)
  .max(200)
  .optional()
  .describe("drag, hover: [{x, y}] from selector's or viewport's top left.")
  .meta({
    docs: "drag: the pointer pressed at the first point, moved through each in small steps, released at the last (or at target, when given): a drawn stroke on a canvas, a drag from a point (a textarea's corner), a game piece. hover: the pointer moved through them unpressed. Points are CSS pixels from the top left of selector's element when one is given (it is scrolled into view first; points may lie outside its box), else of the tab's viewport; each must fall inside the viewport.",
    shared: true,
  });

export const holdField = z.number().min(0).optional().describe("click, drag: seconds held.").meta({
  docs: "click, double_click, right_click: seconds each press is held before its release (a press-and-hold button, a long press). drag: seconds held at the start before moving (a long press that picks an item up). At most 10.",
});

/** The longest hold, in seconds (checked by the gestures, not the schema: tools/list is paid per word). */
const HOLD_MAX = 10;

/** hold's cap. */
export function holdAtMost(i: { hold?: number }, issue: Issue): void {
  if (i.hold !== undefined && i.hold > HOLD_MAX) issue("hold", `must be at most ${HOLD_MAX} (seconds)`);
}

/** The element, or the point instead of it: one or the other, x with y. */
export function pointOrSelector(
  i: { action: string; selector?: unknown; x?: number; y?: number },
  issue: Issue,
): void {
  if (i.x !== undefined || i.y !== undefined) {
    if (i.x === undefined || i.y === undefined)
      issue(i.x === undefined ? "x" : "y", "must be given with the other coordinate");
    else if (i.selector !== undefined) issue("selector", "must not come with x and y: give one or the other");
  } else if (i.selector === undefined)
    issue(
      "selector",
      `must be given for ${i.action}: the element to act on (read_page lists selectors), or x and y`,
    );
}

/** The rule of the gestures that act on an element and take no point instead. */
export function needsSelector(i: { action: string; selector?: unknown }, issue: Issue): void {
  if (i.selector === undefined)
    issue("selector", `must be given for ${i.action}: the element to act on (read_page lists selectors)`);
}

// ---- the union of the branches --------------------------------------------------------------------

/** "a, b or c". */
const either = (names: readonly string[]) =>
  names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;

/**
 * interact's input: action (every gesture's names), each field of every branch once, timeout. A
 * field the named gesture does not take is refused, naming those that do; then its own rules run.
 */
export function gestureInput<G extends readonly AnyGesture[], T extends z.ZodType>(
  gestures: G,
  timeout: T,
): z.ZodObject<InputShape<G, T>, z.core.$strict> {
  const shape: Fields = {};
  const takers = new Map<string, string[]>();
  for (const g of gestures)
    for (const [name, schema] of Object.entries(g.fields as Fields)) {
      if (shape[name] !== undefined && shape[name] !== schema)
        throw new Error(`interact's field ${name} is declared twice: declare it once, in gesture.ts`);
      shape[name] = schema;
      takers.set(name, [...(takers.get(name) ?? []), ...g.actions]);
    }
  const byAction = new Map(gestures.flatMap((g) => g.actions.map((a) => [a, g] as const)));
  const actions = [...byAction.keys()] as [string, ...string[]];
  const input = ruled(
    z.strictObject({
      action: z.enum(actions).meta({ docs: "The gesture (REST: the last path segment)." }),
      ...shape,
      timeout,
    }),
    (input) => {
      const i = input as Record<string, unknown> & { action: string; timeout: number };
      const problems: Problem[] = [];
      const issue: Issue = (field, message) => problems.push({ path: [field], message });
      const g = byAction.get(i.action) as AnyGesture;
      for (const name of Object.keys(shape))
        if (i[name] !== undefined && !(name in g.fields))
          issue(name, `must only come with action ${either(takers.get(name) ?? [])}`);
      if (!problems.length) for (const rule of [g.check ?? []].flat()) rule(i, issue);
      return problems;
    },
  );
  return input as unknown as z.ZodObject<InputShape<G, T>, z.core.$strict>;
}

/** The fields every gesture's result may add, once each. */
export function gestureOutput(gestures: readonly AnyGesture[]): Fields {
  return Object.assign({}, ...gestures.map((g) => g.output ?? {}));
}

/** The gesture that answers to `action`. */
export function gestureOf(gestures: readonly AnyGesture[], action: string): AnyGesture {
  const g = gestures.find((x) => x.actions.includes(action));
  if (!g) throw new Error(`no gesture answers to ${action}`);
  return g;
}
