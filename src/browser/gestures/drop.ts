// drop: workspace files and data onto a drop zone: dragenter, dragover and drop fired from the
// sandbox with one DataTransfer carrying them (WebDriver's pointer cannot start an OS drag carrying
// files); a zone whose dragover is not cancelled refuses it.
import { z } from "zod";
import type { ActionContext } from "../../actions/ports.ts";
import { badInput, tooLarge } from "../../errors.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import { contentType } from "../../kit/file-types.ts";
import { delivered } from "../landing.ts";
import type { Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";
import { target } from "./pointer.ts";

/** At most this much of files rides in one drop (they cross the BiDi socket as base64). */
const DROP_CAP = 16 * 1024 * 1024;

interface Carried {
  name: string;
  type: string;
  data: string;
}

/** Drops workspace files and data onto `el`; a 400 when the element takes no drop. */
async function dropOn(
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
  if (!(await page.callIn<boolean>(el.context, "dropOnto", el, files, input.data ?? {}))) {
    throw badInput(
      `${JSON.stringify(input.selector)} takes no drop (its dragover was not cancelled): name the drop zone`,
      "selector",
    );
  }
}

export const drop = defineGesture({
  actions: ["drop"],
  fields: {
    selector: selectorField,
    files: z
      .array(z.string().min(1).max(2048))
      .max(20)
      .optional()
      .describe("drop: workspace uris.")
      .meta({ docs: "drop: workspace files (uris, as listings give them) the drop carries." }),
    data: z
      .record(z.string().max(100), z.string().max(100_000))
      .optional()
      .meta({ docs: 'drop: data by media type the drop carries, e.g. {"text/plain": "hi"}.' }),
  },
  docs: "drop: workspace files and data onto a drop zone (dragenter, dragover and drop with one DataTransfer, fired from the server sandbox; a zone whose dragover is not cancelled refuses it).",
  check(i, issue) {
    needsSelector(i, issue);
    if (!i.files?.length && i.data === undefined)
      issue("files", 'must be given for drop, or data: what the drop carries, e.g. {"text/plain": "hi"}');
  },
  async run({ ctx, page, input, press }) {
    const el = await target(page, input.selector as Selector, input.timeout);
    press.before = page.held.navigationCount;
    await dropOn(ctx, page, el, input).catch((err: unknown) => delivered(page, err));
    return undefined;
  },
});
