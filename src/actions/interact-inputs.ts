// The inputs interact sets that a pointer cannot: a range, date, time or color input's value (set
// from the sandbox realm, then input and change, as the browser's own picker fires them), and a drop
// of files or data onto an element (dragenter, dragover and drop from the sandbox, with one
// DataTransfer carrying them: WebDriver's pointer cannot start an OS drag carrying files).
import { badInput, tooLarge } from "../errors.ts";
import { contentType } from "../files/types.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import type { PageLib } from "../in-page/index.ts";
import type { ActionContext } from "./ports.ts";
import type { Selector } from "./selectors.ts";

/** What each settable input type takes, for the message when the browser refused a value. */
const FORMATS: Record<string, string> = {
  range: "a number",
  date: "YYYY-MM-DD",
  time: "HH:MM or HH:MM:SS",
  "datetime-local": "YYYY-MM-DDTHH:MM",
  month: "YYYY-MM",
  week: "YYYY-Www",
  color: "#rrggbb",
};

interface ValueSet {
  type?: string;
  problem?: "disabled" | "refused";
  value?: string;
  min?: string;
  max?: string;
  step?: string;
}

// The input (or a label's control); null when it is not one of FORMATS' types. A value the browser
// sanitises away or clamps is refused, and the old value put back.
const SET_VALUE = (_L: PageLib, el: Element, want: string, types: string[]): unknown => {
  const control = el.tagName === "LABEL" ? (el as HTMLLabelElement).control : el;
  if (control?.tagName !== "INPUT") return null;
  const input = control as HTMLInputElement;
  const type = input.type;
  if (!types.includes(type)) return null;
  const bounds = { type, min: input.min, max: input.max, step: input.step };
  if (input.disabled || input.readOnly) return { ...bounds, problem: "disabled" };
  const before = input.value;
  input.value = want;
  const got = input.value;
  const same =
    type === "range"
      ? want.trim() !== "" && Number(got) === Number(want)
      : type === "color"
        ? got === want.trim().toLowerCase()
        : got === want.trim();
  if (!same) {
    input.value = before;
    return { ...bounds, problem: "refused", value: got };
  }
  if (got !== before) {
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }
  return { type, value: got };
};

/**
 * Sets a range, date, time or color input to `value`; null when the element is none of those.
 * `field`: the input field the value came from (write's text), for messages.
 */
export async function setInputValue(
  page: Page,
  el: NodeRef,
  input: { selector?: Selector; value?: string },
  field = "value",
): Promise<{ label: string; value: string } | null> {
  const want = input.value ?? "";
  const got = await page.callIn<ValueSet | null>(el.context, SET_VALUE, el, want, Object.keys(FORMATS));
  if (!got) return null;
  const q = JSON.stringify(input.selector);
  const kind = `the ${got.type} input ${q}`;
  if (got.problem === "disabled") throw badInput(`${kind} is disabled or read-only`, "selector");
  if (got.problem === "refused") {
    const range = [got.min && `min ${got.min}`, got.max && `max ${got.max}`, got.step && `step ${got.step}`]
      .filter(Boolean)
      .join(", ");
    throw badInput(
      `${kind} does not take ${JSON.stringify(want)}: give ${FORMATS[got.type as string]}${range ? ` (${range})` : ""}`,
      field,
    );
  }
  return { label: got.value as string, value: got.value as string };
}

/** At most this much of files rides in one drop (they cross the BiDi socket as base64). */
const DROP_CAP = 16 * 1024 * 1024;

interface Carried {
  name: string;
  type: string;
  data: string;
}

// One DataTransfer for the whole drop, as the browser keeps one; false when no dragover was
// cancelled (the element takes no drop, and a browser would not drop there either).
const DROP = (_L: PageLib, el: Element, files: Carried[], data: Record<string, string>): boolean => {
  const dt = new DataTransfer();
  for (const [type, text] of Object.entries(data)) dt.setData(type, text);
  for (const f of files) {
    const bin = atob(f.data);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type }));
  }
  const r = el.getBoundingClientRect();
  const pos = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  const fire = (type: string) =>
    el.dispatchEvent(
      new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt, ...pos }),
    );
  fire("dragenter");
  if (fire("dragover")) {
    fire("dragleave");
    return false;
  }
  fire("drop");
  return true;
};

/** Drops workspace files and data onto `el`; a 400 when the element takes no drop. */
export async function dropOn(
  ctx: ActionContext,
  page: Page,
  el: NodeRef,
  input: { selector?: Selector; files?: string[]; data?: Record<string, string> },
): Promise<void> {
  const files: Carried[] = [];
  let size = 0;
  for (const uri of input.files ?? []) {
    const { name, data } = await ctx.services.files.read(ctx.workspace, uri);
    size += data.length;
    if (size > DROP_CAP) throw tooLarge("the files of one drop are over 16 MiB: drop fewer");
    files.push({ name, type: contentType(name), data: Buffer.from(data).toString("base64") });
  }
  if (!(await page.callIn<boolean>(el.context, DROP, el, files, input.data ?? {}))) {
    throw badInput(
      `${JSON.stringify(input.selector)} takes no drop (its dragover was not cancelled): name the drop zone`,
      "selector",
    );
  }
}

const VIEWPORT = () => ({ width: innerWidth, height: innerHeight });

/** The point, when it lies inside the tab's viewport; else a 400 giving the viewport's size. */
export async function inViewport(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const v = await page.callIn<{ width: number; height: number }>(page.where.tab, VIEWPORT);
  if (x < v.width && y < v.height) return { x, y };
  throw badInput(
    `field "${x < v.width ? "y" : "x"}" is outside the viewport (${v.width}×${v.height}): give a point inside it, or scroll first`,
    x < v.width ? "y" : "x",
  );
}
