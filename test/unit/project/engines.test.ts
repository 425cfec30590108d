// Every installed package accepts the oldest Node the project supports (package.json `engines`), so
// `npm install`, `npm start` and `npm test` print no EBADENGINE warning on it.
import { expect, test } from "bun:test";
import pkg from "../../../package.json";
import lock from "../../../package-lock.json";

type Entry = { engines?: { node?: string } | string[]; optional?: boolean };

test("each package in the lockfile runs on the oldest supported Node", () => {
  const oldest = /^>=\s*(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
  expect(oldest).toBeDefined();
  const refused = Object.entries(lock.packages as Record<string, Entry>)
    .filter(([name, e]) => name !== "" && !Array.isArray(e.engines) && e.engines?.node)
    .filter(([, e]) => !Bun.semver.satisfies(oldest as string, (e.engines as { node: string }).node))
    .map(
      ([name, e]) =>
        `${name.replace(/^.*node_modules\//, "")} wants node ${(e.engines as { node: string }).node}`,
    );
  expect(refused).toEqual([]);
});
