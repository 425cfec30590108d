// The browser capability as the registry lists it: the browser's own actions (the page, its tabs
// and frames, the session). It has no resource, admin route or tab of its own.
import { capability } from "../admin/capability.ts";
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

export const browser = capability({
  name: "browser",
  actions: [
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
    dialog,
    switchTo,
    screenshot,
    printPage,
  ],
});
