// What the admin pages' end-to-end tests share: waiting on the page as a person would look at it.
import { error, type WebDriver } from "selenium-webdriver";

/**
 * Waits until `fn` answers something, at most `ms`. A pane the page reloads meanwhile (a push)
 * replaces the elements `fn` was reading: that read is tried again, as a person would look again.
 */
export function waitOn<T>(
  driver: WebDriver,
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms: number,
): Promise<T> {
  return driver.wait(
    async () => {
      try {
        return (await fn()) || null;
      } catch (err) {
        if (err instanceof error.StaleElementReferenceError) return null;
        throw err;
      }
    },
    ms,
    `waited ${ms} ms for ${what}`,
  ) as Promise<T>;
}
