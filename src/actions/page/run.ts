// Sends page-side functions to the browser: each script carries the library's source and calls one
// function with it, so a call is one executeScript round trip whatever the page holds.
import type { WebDriver } from "selenium-webdriver";
import { type PageLib, pageLib } from "./lib.ts";

// biome-ignore lint/suspicious/noExplicitAny: page functions take any JSON-able arguments
type PageFn = (lib: PageLib, ...args: any[]) => unknown;

/** An expression that builds the library in the page. */
export const LIB = `(${pageLib.toString()})()`;

/** The script text that runs `fn(lib, ...arguments)` in the page. */
export function pageScript(fn: PageFn): string {
  return `return (${fn.toString()}).apply(null, [${LIB}].concat(Array.prototype.slice.call(arguments)));`;
}

/** Runs a script made by `pageScript` with its arguments (WebElements and JSON values). */
export function runPage<T>(driver: WebDriver, script: string, ...args: unknown[]): Promise<T> {
  return driver.executeScript(script, ...args) as Promise<T>;
}
