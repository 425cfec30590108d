// The page library: what the server's own scripts use in the page, bundled at build time into one
// string (bundle.ts) and installed once per document in the server's sandbox realm. The page's
// scripts cannot see it, and nothing the page does to its own globals changes what it computes.

import { accessibleName, labelsOf } from "./accname.ts";
import { boundEmpty, boundFill, boundWait } from "./bound.ts";
import {
  boxInTop,
  checkable,
  chosenFiles,
  commitText,
  describeAll,
  dropOnto,
  focusOn,
  frameWindow,
  html5Drag,
  innerViewport,
  keptLength,
  pickOption,
  readChecked,
  setValue,
  submitForm,
} from "./controls.ts";
import {
  allElements,
  BUTTON_INPUTS,
  cut,
  fresh as freshDom,
  isVisible,
  norm,
  shownText,
  textOf,
  viewportSize,
} from "./dom.ts";
import { dragEnds, pathFrame } from "./drag.ts";
import { readMatches } from "./extract.ts";
import { focusField, insertable } from "./fields.ts";
import { commitField, fillField } from "./fill.ts";
import { forgetHints } from "./hinted.ts";
import { describe, hints, INTERACTIVE } from "./hints.ts";
import { readIdb } from "./idb.ts";
import { keeping } from "./kept.ts";
import { afterGesture, arm, leaving } from "./leaving.ts";
import {
  countMatches,
  fieldTarget,
  fileTarget,
  framesHere,
  located,
  matchCount,
  pointerTarget,
  visibleMatches,
} from "./locate.ts";
import { locatorOf } from "./locator.ts";
import { readPage } from "./outline.ts";
import { personHandBack, personTyping } from "./person.ts";
import { plainOf, wrotePlain } from "./plain.ts";
import { aim, clickSeen, hitSeen, hitWatch, textSelected, textSpan } from "./pointer.ts";
import { forgetRegistries, resolveRef } from "./refs.ts";
import { roleOf } from "./roles.ts";
import { coverOf } from "./seen.ts";
import { cssFor, find } from "./selectors.ts";
import { docTitle, whereIs } from "./standalone.ts";
import { readPage as readStorages } from "./storage.ts";
import { pack, unpack } from "./wire.ts";

/** Forgets what one call learnt of the page; every call starts with it. */
function fresh(): void {
  freshDom();
  forgetHints();
  forgetRegistries();
}

/** A save's read of the top document: both its storages, its IndexedDB, its title and the cores. */
async function storagesNow(): Promise<Record<string, unknown>> {
  const o = JSON.parse(readStorages()) as Record<string, unknown>;
  try {
    o.idb = await readIdb();
  } catch {
    o.idb = { dbs: [], skipped: [] };
  }
  return o;
}

const lib = {
  norm,
  cut,
  isVisible,
  viewportSize,
  allElements,
  find,
  focusField,
  fillField,
  commitField,
  insertable,
  roleOf,
  accessibleName,
  labelsOf,
  textOf,
  shownText,
  cssFor,
  locatorOf,
  hints,
  describe,
  readPage,
  storagesNow,
  /** What paints over a field (write refuses to type into one a person cannot see). */
  covered: (el: Element) => coverOf(el, describe),
  resolveRef,
  aim,
  hitWatch,
  hitSeen,
  clickSeen,
  dragEnds,
  pathFrame,
  textSpan,
  textSelected,
  arm,
  leaving,
  fresh,
  whereIs,
  wrotePlain,
  plainOf,
  boundFill,
  boundEmpty,
  boundWait,
  personTyping,
  personHandBack,
  pack,
  unpack,
  INTERACTIVE,
  BUTTON_INPUTS,
  // What the server's actions run by name (every page function lives in src/in-page/).
  located,
  keeping,
  visibleMatches,
  framesHere,
  matchCount,
  countMatches,
  pointerTarget,
  fieldTarget,
  fileTarget,
  readMatches,
  checkable,
  readChecked,
  pickOption,
  setValue,
  focusOn,
  submitForm,
  keptLength,
  commitText,
  dropOnto,
  html5Drag,
  frameWindow,
  chosenFiles,
  innerViewport,
  boxInTop,
  describeAll,
  afterGesture,
  docTitle,
};

export type PageLib = typeof lib;
/** The name of a page function: a member of the library the page port calls. */
export type PageFn = {
  // biome-ignore lint/suspicious/noExplicitAny: any function of the library, whatever it takes
  [K in keyof PageLib]: PageLib[K] extends (...args: any[]) => unknown ? K : never;
}[keyof PageLib];
export type { Locator } from "./locator.ts";
export type { PageSelector } from "./selectors.ts";

(globalThis as { __sfLib?: PageLib }).__sfLib = lib;
