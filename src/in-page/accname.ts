// Page side: accessible names and form-field labels (after the accname spec's main steps).
import { BUTTON_INPUTS, low, norm, shadowRoots, textOf } from "./dom.ts";
import { roleOf } from "./roles.ts";

export const NAME_FROM_CONTENT = new Set([
  "button",
  "link",
  "heading",
  "cell",
  "columnheader",
  "rowheader",
  "checkbox",
  "radio",
  "switch",
  "tab",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "option",
  "treeitem",
  "tooltip",
  "row",
  "gridcell",
]);

export function idsText(el: Element, attr: string): string {
  const ids = (el.getAttribute(attr) ?? "").trim().split(/\s+/).filter(Boolean);
  const root = el.getRootNode() as Document | ShadowRoot;
  return norm(
    ids
      .map((id) => {
        const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
        return ref ? textOf(ref) || norm(ref.getAttribute("aria-label")) : "";
      })
      .join(" "),
  );
}

/** A label's own words, without the text of a control it wraps (a select's options, say). */
export function labelText(label: Element): string {
  const copy = label.cloneNode(true) as Element;
  for (const c of Array.from(copy.querySelectorAll("select,textarea,input,datalist"))) c.remove();
  return norm(copy.textContent);
}

export function fieldLabels(el: Element): string[] {
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels).map(labelText).filter(Boolean) : [];
}

export function contentName(el: Element): string {
  const shown = textOf(el);
  if (shown) return shown;
  const img = el.querySelector("img[alt]:not([alt='']),[aria-label]");
  if (img) return norm(img.getAttribute("alt") || img.getAttribute("aria-label"));
  return "";
}

export function accessibleName(el: Element): string {
  const by = idsText(el, "aria-labelledby");
  if (by) return by;
  const aria = norm(el.getAttribute("aria-label"));
  if (aria) return aria;
  const tag = el.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "METER" || tag === "PROGRESS") {
    const input = el as HTMLInputElement;
    if (tag === "INPUT" && BUTTON_INPUTS.includes(input.type)) {
      if (input.type === "image") return norm(input.alt) || norm(input.title) || "Submit";
      return textOf(el) || (input.type === "reset" ? "Reset" : "");
    }
    const labels = fieldLabels(el).join(" ");
    if (labels) return labels;
    return norm(el.getAttribute("title")) || norm(el.getAttribute("placeholder"));
  }
  if (tag === "IMG" || tag === "AREA") return norm(el.getAttribute("alt")) || norm(el.getAttribute("title"));
  if (tag === "FIELDSET") {
    const legend = el.querySelector(":scope > legend");
    if (legend) return textOf(legend);
  }
  if (tag === "TABLE") {
    const caption = el.querySelector(":scope > caption");
    if (caption) return textOf(caption);
  }
  if (tag === "FIGURE") {
    const fc = el.querySelector(":scope > figcaption");
    if (fc) return textOf(fc);
  }
  const role = roleOf(el);
  if (role && NAME_FROM_CONTENT.has(role)) {
    const fromLabels = fieldLabels(el).join(" ");
    const name = contentName(el) || fromLabels;
    if (name) return name;
  }
  return norm(el.getAttribute("title"));
}

export const FIELDS =
  "input:not([type=hidden]),select,textarea,[contenteditable]:not([contenteditable=false]),[role=textbox],[role=combobox],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=spinbutton],[role=searchbox],[role=listbox]";

export function fieldsOf(root: Document | ShadowRoot): Element[] {
  const out = Array.from(root.querySelectorAll(FIELDS));
  for (const inner of shadowRoots(root as Document)) out.push(...Array.from(inner.querySelectorAll(FIELDS)));
  return out.filter(
    (el) => !(el.tagName === "INPUT" && BUTTON_INPUTS.includes((el as HTMLInputElement).type)),
  );
}

/** The names a form field goes by, strongest first: label, aria-labelledby, aria-label; then placeholder. */
export function labelsOf(el: Element): { primary: string[]; placeholder: string } {
  const primary = [...fieldLabels(el), idsText(el, "aria-labelledby"), norm(el.getAttribute("aria-label"))];
  return {
    primary: primary.filter(Boolean),
    placeholder: norm(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder")),
  };
}

export const trimLabel = (s: string) => low(s).replace(/[\s:*]+$/, "");
