// The admin UI in a real browser at a chosen size: a viewer workspace whose own browser shows the
// admin pages (attached by id, so the test's clicks are not calls), signed in. Its pages are checked
// for what runs off the screen sideways or out of a table cell, and saved as PNGs under
// .run/ui-shots/ for a person to look at.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { By, until, type WebDriver } from "selenium-webdriver";
import { type TestServer, TOKEN } from "./server.ts";

export interface Size {
  width: number;
  height: number;
}
export const PHONE: Size = { width: 390, height: 844 };
export const NARROW: Size = { width: 360, height: 740 };
export const DESKTOP: Size = { width: 1366, height: 850 };

/** Where the pages' pictures go. */
export const SHOTS = join(import.meta.dir, "../../.run/ui-shots");

/** Opens `workspace`'s browser at `size` on the admin UI, signs in, and answers the attached driver. */
export async function viewerAt(server: TestServer, workspace: string, size: Size): Promise<WebDriver> {
  const opened = await server.call(
    "POST",
    "/browser",
    { url: `${server.url}/ui/`, viewport: size },
    workspace,
  );
  if (opened.status !== 200)
    throw new Error(`open the viewer: ${opened.status} ${JSON.stringify(opened.body)}`);
  const record = await server.app.services.store.get(workspace);
  const driver = server.app.services.grid.attach(record?.session_id as string);
  await driver.findElement(By.id("token")).sendKeys(TOKEN);
  await driver.findElement(By.css("form.sign-in button[type=submit]")).click();
  await driver.wait(until.elementLocated(By.id("cards")), 15_000);
  return driver;
}

/** The whole page `workspace`'s browser shows, saved as `.run/ui-shots/<name>.png`; answers the path. */
export async function savePage(server: TestServer, workspace: string, name: string): Promise<string> {
  const shot = await server.call("POST", "/browser/screenshot", { full_page: true }, workspace);
  if (shot.status !== 200) throw new Error(`screenshot: ${shot.status} ${JSON.stringify(shot.body)}`);
  const { data } = await server.app.services.files.read(workspace, shot.body.file.uri);
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  writeFileSync(path, data);
  return path;
}

/**
 * What is wrong with the page's layout at its size, one line each: the page wider than the window,
 * a link, button or tab of the top bar or the tab row past either edge, a table cell's text running
 * out of its cell (over its neighbour).
 */
export function layoutProblems(driver: WebDriver): Promise<string[]> {
  return driver.executeScript<string[]>(() => {
    const out: string[] = [];
    // The window less a scroll bar.
    const w = document.documentElement.clientWidth;
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()} "${(el.textContent ?? "").trim().slice(0, 30)}"`;
    const wide = document.documentElement.scrollWidth;
    if (wide > w) out.push(`the page is ${wide} px wide in a ${w} px wide window`);
    for (const el of Array.from(document.querySelectorAll(".top a, .top button, [role=tab], main button"))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < -0.5 || r.right > w + 0.5)
        out.push(`${name(el)} runs off the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
    }
    for (const cell of Array.from(document.querySelectorAll("td, th"))) {
      if (getComputedStyle(cell).overflowX !== "visible") continue;
      const text = document.createRange();
      text.selectNodeContents(cell);
      const t = text.getBoundingClientRect();
      const c = cell.getBoundingClientRect();
      if (t.width > 0 && (t.left < c.left - 0.5 || t.right > c.right + 0.5))
        out.push(`${name(cell)} runs out of its cell (${Math.round(t.right)} > ${Math.round(c.right)})`);
    }
    return out;
  });
}

/** Writes a PNG the browser took (base64) to `.run/ui-shots/<name>.png`. */
export function saveBase64(name: string, base64: string): string {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  writeFileSync(path, Buffer.from(base64, "base64"));
  return path;
}
