// Key parsing: names, characters, held modifiers, and the text Element Send Keys gets.
import { describe, expect, test } from "bun:test";
import { Key } from "selenium-webdriver";
import { MAX_COMBOS, parseKeys, sendKeysText } from "../../../src/grid/keys.ts";

const combos = (keys: string) => {
  const got = parseKeys(keys);
  if ("problem" in got) throw new Error(got.problem);
  return got.combos;
};

describe("parseKeys", () => {
  test("names, aliases and single characters, case-insensitive", () => {
    expect(combos("Enter")).toEqual([{ modifiers: [], key: Key.ENTER }]);
    expect(combos("return esc ArrowDown up PageDown Space F5 Plus")).toEqual(
      [Key.ENTER, Key.ESCAPE, Key.ARROW_DOWN, Key.ARROW_UP, Key.PAGE_DOWN, " ", Key.F5, "+"].map((key) => ({
        modifiers: [],
        key,
      })),
    );
    expect(combos("a Z 7 é")).toEqual(["a", "Z", "7", "é"].map((key) => ({ modifiers: [], key })));
  });

  test("held modifiers, in order; a modifier alone; the plus key with a modifier", () => {
    expect(combos("Control+a")).toEqual([{ modifiers: [Key.CONTROL], key: "a" }]);
    expect(combos("ctrl+Shift+Tab")).toEqual([{ modifiers: [Key.CONTROL, Key.SHIFT], key: Key.TAB }]);
    expect(combos("Cmd+c Meta+v")).toEqual([
      { modifiers: [Key.META], key: "c" },
      { modifiers: [Key.META], key: "v" },
    ]);
    expect(combos("Shift")).toEqual([{ modifiers: [], key: Key.SHIFT }]);
    expect(combos("Control++")).toEqual([{ modifiers: [Key.CONTROL], key: "+" }]);
    expect(combos("+")).toEqual([{ modifiers: [], key: "+" }]);
  });

  test("several presses separated by spaces", () => {
    expect(combos("  Tab Tab\tEnter ")).toEqual(
      [Key.TAB, Key.TAB, Key.ENTER].map((key) => ({ modifiers: [], key })),
    );
  });

  test("problems name the bad key and what to write instead", () => {
    const problem = (keys: string) => {
      const got = parseKeys(keys);
      return "problem" in got ? got.problem : null;
    };
    expect(problem("")).toContain("names no key");
    expect(problem("Entr")).toContain('unknown key "Entr"');
    expect(problem("Contrl+a")).toBe(
      'has "Contrl" before a "+" in "Contrl+a": only Shift, Control, Alt or Meta can be held',
    );
    expect(problem("a+b")).toContain('has "a" before a "+"');
    expect(problem("Control+")).toContain('empty key in "Control+"');
    expect(
      problem(
        Array(MAX_COMBOS + 1)
          .fill("a")
          .join(" "),
      ),
    ).toContain(`at most ${MAX_COMBOS}`);
  });
});

describe("sendKeysText", () => {
  test("plain keys as they are; a combo's modifiers released by NULL right after it", () => {
    expect(sendKeysText(combos("Control+a Backspace x"))).toBe(
      `${Key.CONTROL}a${Key.NULL}${Key.BACK_SPACE}x`,
    );
    expect(sendKeysText(combos("Shift+Tab Enter"))).toBe(`${Key.SHIFT}${Key.TAB}${Key.NULL}${Key.ENTER}`);
  });
});
