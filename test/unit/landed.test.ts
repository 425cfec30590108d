// The read after a gesture catches up with a navigation the gesture began but WebDriver did not wait for.
import { expect, test } from "bun:test";
import type { WebDriver } from "selenium-webdriver";
import { landed } from "../../src/actions/page/state.ts";
import type { Services } from "../../src/services.ts";

function fakeDriver(reads: unknown[]) {
  let n = 0;
  const driver = {
    executeScript: async () => reads[Math.min(n++, reads.length - 1)],
  } as unknown as WebDriver;
  return { driver, count: () => n };
}

const ctx = () => {
  const lands: Array<string | null> = [];
  return {
    lands,
    land: (u: string | null) => lands.push(u),
    services: { secrets: { all: () => [] } } as unknown as Services,
  };
};

test("a page still leaving is read again until the new page answers", async () => {
  const { driver, count } = fakeDriver([
    ["https://app.example.test/form", "Sign up", true, "maybe"],
    ["https://app.example.test/form", "Sign up", true, "yes"],
    ["https://app.example.test/done", "Done", true, null],
  ]);
  expect(await landed(ctx(), driver)).toEqual({ url: "https://app.example.test/done", title: "Done" });
  expect(count()).toBe(3);
});

test("a page that stays is read once", async () => {
  const { driver, count } = fakeDriver([["https://app.example.test/", "Home", true, null]]);
  expect(await landed(ctx(), driver)).toEqual({ url: "https://app.example.test/", title: "Home" });
  expect(count()).toBe(1);
});

test("a navigation that never comes (a download, a 204) gives up after a moment", async () => {
  const { driver, count } = fakeDriver([["https://app.example.test/", "Home", true, "yes"]]);
  expect(await landed(ctx(), driver)).toEqual({ url: "https://app.example.test/", title: "Home" });
  expect(count()).toBeGreaterThan(2);
});

test("inside a frame nothing is recorded", async () => {
  const c = ctx();
  const { driver } = fakeDriver([["https://app.example.test/inner", "Inner", false, null]]);
  await landed(c, driver);
  expect(c.lands).toEqual([null]);
});
