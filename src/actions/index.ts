// The action table: every browser action, once. Surfaces, OpenAPI and docs are built from it.

import { keepFile, uploadFile } from "../files/actions.ts";
import { deleteFlowAction, runFlowAction, saveFlowAction } from "../flows/actions.ts";
import { askHuman } from "../person/actions.ts";
import { saveSiteData } from "../site-data/actions.ts";
import type { AnyAction } from "./action.ts";
import { assertAction } from "./assert.ts";
import { dialog } from "./dialog.ts";
import { extract } from "./extract.ts";
import { interact } from "./interact.ts";
import { logs } from "./logs.ts";
import { navigate } from "./navigate.ts";
import { readPageAction } from "./read.ts";
import { printPage, screenshot } from "./screenshot.ts";
import { executeScript } from "./script.ts";
import { endBrowser, openSession } from "./session.ts";
import { switchTo } from "./switch.ts";
import { write } from "./write.ts";

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
