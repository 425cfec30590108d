// Key presses as people write them ("Enter", "Control+a", "Shift+Tab", "Tab Tab Enter") turned into
// WebDriver key codes. Pure.
import { Key } from "selenium-webdriver";

export interface Combo {
  /** WebDriver codes of the modifiers held, in order. */
  modifiers: string[];
  /** The WebDriver code or the character of the key pressed. */
  key: string;
}

const MODIFIERS: Record<string, string> = {
  shift: Key.SHIFT,
  control: Key.CONTROL,
  ctrl: Key.CONTROL,
  alt: Key.ALT,
  option: Key.ALT,
  meta: Key.META,
  command: Key.META,
  cmd: Key.META,
  super: Key.META,
};

const NAMED: Record<string, string> = {
  enter: Key.ENTER,
  return: Key.ENTER,
  tab: Key.TAB,
  escape: Key.ESCAPE,
  esc: Key.ESCAPE,
  backspace: Key.BACK_SPACE,
  delete: Key.DELETE,
  del: Key.DELETE,
  insert: Key.INSERT,
  home: Key.HOME,
  end: Key.END,
  pageup: Key.PAGE_UP,
  pagedown: Key.PAGE_DOWN,
  arrowup: Key.ARROW_UP,
  up: Key.ARROW_UP,
  arrowdown: Key.ARROW_DOWN,
  down: Key.ARROW_DOWN,
  arrowleft: Key.ARROW_LEFT,
  left: Key.ARROW_LEFT,
  arrowright: Key.ARROW_RIGHT,
  right: Key.ARROW_RIGHT,
  space: " ",
  plus: "+",
  f1: Key.F1,
  f2: Key.F2,
  f3: Key.F3,
  f4: Key.F4,
  f5: Key.F5,
  f6: Key.F6,
  f7: Key.F7,
  f8: Key.F8,
  f9: Key.F9,
  f10: Key.F10,
  f11: Key.F11,
  f12: Key.F12,
};

export const MAX_COMBOS = 50;
const EXAMPLES = 'e.g. "Enter", "Control+a", "Shift+Tab" or "Tab Tab Enter"';

/** The combos in `keys`, or a problem to report (naming the bad key, which is a key name, not typed text). */
export function parseKeys(keys: string): { combos: Combo[] } | { problem: string } {
  const words = keys.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return { problem: `names no key (${EXAMPLES})` };
  if (words.length > MAX_COMBOS)
    return { problem: `names ${words.length} key presses: at most ${MAX_COMBOS}` };
  const combos: Combo[] = [];
  for (const word of words) {
    // "Control++" presses "+" with Control; a lone "+" is the plus key.
    const parts =
      word === "+" ? ["+"] : word.endsWith("++") ? [...word.slice(0, -2).split("+"), "+"] : word.split("+");
    if (parts.some((p) => p === "")) return { problem: `has an empty key in "${word}" (${EXAMPLES})` };
    const keyName = parts[parts.length - 1] as string;
    const modifiers: string[] = [];
    for (const m of parts.slice(0, -1)) {
      const code = MODIFIERS[m.toLowerCase()];
      if (!code)
        return {
          problem: `has "${m}" before a "+" in "${word}": only Shift, Control, Alt or Meta can be held`,
        };
      modifiers.push(code);
    }
    const key = keyCode(keyName);
    if (key === null)
      return {
        problem: `has an unknown key "${keyName}": use a single character or a name such as Enter, Tab, Escape, Backspace, Delete, ArrowDown, Home, PageDown, Space, F5`,
      };
    combos.push({ modifiers, key });
  }
  return { combos };
}

function keyCode(name: string): string | null {
  if ([...name].length === 1) return name;
  const lower = name.toLowerCase();
  return NAMED[lower] ?? MODIFIERS[lower] ?? null;
}

/** The combos as one Element Send Keys string: modifiers stay down until NULL releases them. */
export function sendKeysText(combos: Combo[]): string {
  return combos
    .map((c) => (c.modifiers.length ? `${c.modifiers.join("")}${c.key}${Key.NULL}` : c.key))
    .join("");
}

/** The modifiers a click can hold, as the interact schema names them. */
export const MODIFIER_NAMES = ["Control", "Shift", "Alt", "Meta"] as const;

/** WebDriver codes of the named modifiers, each once. */
export function modifierCodes(names: readonly (typeof MODIFIER_NAMES)[number][]): string[] {
  return [...new Set(names)].map((n) => MODIFIERS[n.toLowerCase()] as string);
}
