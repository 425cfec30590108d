// The action table: every browser action, once. Surfaces, OpenAPI and docs are built from it.

import { saveSiteData } from "../site-data/action.ts";
import type { AnyAction } from "./define.ts";
import { dialog } from "./dialog.ts";
import { keepFile, uploadFile } from "./files.ts";
import { navigate } from "./navigate.ts";
import { printPage, screenshot } from "./screenshot.ts";
import { endBrowser, openSession } from "./session.ts";
import { switchTo } from "./switch.ts";

export const ACTIONS: readonly AnyAction[] = [
  openSession,
  endBrowser,
  navigate,
  saveSiteData,
  dialog,
  switchTo,
  screenshot,
  printPage,
  uploadFile,
  keepFile,
];
