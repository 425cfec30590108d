// Page side: ARIA roles, explicit or implied by the tag (the subset WAI-ARIA's HTML mapping gives
// the elements agents act on).
import { BUTTON_INPUTS } from "./dom.ts";

export const TEXT_INPUTS = ["", "text", "email", "tel", "url", "password", "search", "number"];

export function implicitRole(el: Element): string | null {
  const tag = el.tagName;
  switch (tag) {
    case "A":
    case "AREA":
      return el.hasAttribute("href") ? "link" : null;
    case "BUTTON":
      return "button";
    case "SUMMARY":
      return "button";
    case "INPUT": {
      const t = (el as HTMLInputElement).type;
      if (BUTTON_INPUTS.includes(t)) return "button";
      if (t === "checkbox") return "checkbox";
      if (t === "radio") return "radio";
      if (t === "range") return "slider";
      if (t === "number") return "spinbutton";
      if (t === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
      if (TEXT_INPUTS.includes(t)) return el.hasAttribute("list") ? "combobox" : "textbox";
      return null;
    }
    case "SELECT": {
      const s = el as HTMLSelectElement;
      return s.multiple || s.size > 1 ? "listbox" : "combobox";
    }
    case "TEXTAREA":
      return "textbox";
    case "OPTION":
      return "option";
    case "H1":
    case "H2":
    case "H3":
    case "H4":
    case "H5":
    case "H6":
      return "heading";
    case "NAV":
      return "navigation";
    case "MAIN":
      return "main";
    case "ASIDE":
      return "complementary";
    case "HEADER":
      return el.parentElement?.closest("article,aside,main,nav,section") ? null : "banner";
    case "FOOTER":
      return el.parentElement?.closest("article,aside,main,nav,section") ? null : "contentinfo";
    case "FORM":
      return "form";
    case "SECTION":
      return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : null;
    case "UL":
    case "OL":
    case "MENU":
      return "list";
    case "LI":
      return "listitem";
    case "TABLE":
      return "table";
    case "TR":
      return "row";
    case "TD":
      return "cell";
    case "TH":
      return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
    case "IMG":
      return el.getAttribute("alt") === "" ? "presentation" : "img";
    case "DIALOG":
      return "dialog";
    case "ARTICLE":
      return "article";
    case "FIELDSET":
    case "DETAILS":
      return "group";
    case "PROGRESS":
      return "progressbar";
    case "HR":
      return "separator";
    case "SEARCH":
      return "search";
    default:
      return (el as HTMLElement).isContentEditable && !el.parentElement?.closest("[contenteditable]")
        ? "textbox"
        : null;
  }
}

export function roleOf(el: Element): string | null {
  const explicit = (el.getAttribute("role") ?? "").trim().split(/\s+/)[0];
  return explicit ? explicit.toLowerCase() : implicitRole(el);
}

// Where an implicit role can come from, so a role search looks at few elements.
export const ROLE_TAGS: Record<string, string> = {
  link: "a[href],area[href]",
  button: "button,summary,input[type=button],input[type=submit],input[type=reset],input[type=image]",
  checkbox: "input[type=checkbox]",
  radio: "input[type=radio]",
  slider: "input[type=range]",
  spinbutton: "input[type=number]",
  textbox: "input,textarea,[contenteditable]",
  searchbox: "input[type=search]",
  combobox: "select,input[list]",
  listbox: "select",
  option: "option",
  heading: "h1,h2,h3,h4,h5,h6",
  navigation: "nav",
  main: "main",
  complementary: "aside",
  banner: "header",
  contentinfo: "footer",
  form: "form",
  region: "section",
  list: "ul,ol,menu",
  listitem: "li",
  table: "table",
  row: "tr",
  cell: "td",
  columnheader: "th",
  rowheader: "th",
  img: "img",
  dialog: "dialog",
  article: "article",
  group: "fieldset,details",
  progressbar: "progress",
  separator: "hr",
  search: "search",
};
