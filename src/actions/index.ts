// The action table: every browser action, once. Surfaces, OpenAPI and docs are built from it.

import { assertAction } from "../browser/assert.ts";
import { dialog } from "../browser/dialog.ts";
import { extract } from "../browser/extract.ts";
import { interact } from "../browser/interact.ts";
import { logs } from "../browser/logs.ts";
import { navigate } from "../browser/navigate.ts";
import { readPageAction } from "../browser/read.ts";
import { printPage, screenshot } from "../browser/screenshot.ts";
import { executeScript } from "../browser/script.ts";
import { endBrowser, openSession } from "../browser/session.ts";
import { switchTo } from "../browser/switch.ts";
import { write } from "../browser/write.ts";
import { keepFile, uploadFile } from "../files/actions.ts";
import { deleteFlowAction, runFlowAction, saveFlowAction } from "../flows/actions.ts";
import { askHuman } from "../person/actions.ts";
import { saveSiteData } from "../site-data/actions.ts";
import type { AnyAction } from "./action.ts";

export const ACTIONS: readonly AnyAction[] = [
  openSession,
  endBrowser,
  navigate,
  interact,
  write,
  extract,
  readPageAction,
  logs,
  executeScript,
  assertAction,
  saveSiteData,
  dialog,
  switchTo,
  runFlowAction,
  saveFlowAction,
  deleteFlowAction,
  screenshot,
  printPage,
  uploadFile,
  keepFile,
  askHuman,
];
