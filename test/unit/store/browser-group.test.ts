// The group a server tags its browsers with: the same on every server of one store and key (however
// the Redis URL carries its password or database), different for another key or another store, and
// nothing of the key in it.
import { describe, expect, test } from "bun:test";
import { browserGroup } from "../../../src/store/index.ts";

const KEY = "browser-group-test-key-0123456789abcdef";
const redis = (url: string, key: string | undefined = KEY) =>
  browserGroup({ store: { url }, data: { dir: null } }, key);
const sqlite = (dir: string | null, key: string | undefined = KEY) =>
  browserGroup({ store: { url: null }, data: { dir } }, key);

describe("browserGroup", () => {
  test("one store and key: one group, whatever the URL's credentials or spelling of database 0", () => {
    const g = redis("redis://redis.example.test:6379/0");
    expect(g).toMatch(/^[0-9a-f]{16}$/);
    expect(redis("redis://:pw@redis.example.test:6379/0")).toBe(g);
    expect(redis("redis://redis.example.test:6379")).toBe(g);
    expect(redis("redis://REDIS.example.test:6379/")).toBe(g);
    expect(sqlite("/data")).toBe(sqlite("/data/"));
  });

  test("another key, database, host or data dir: another group", () => {
    const g = redis("redis://redis.example.test:6379/0");
    expect(redis("redis://redis.example.test:6379/0", `${KEY}x`)).not.toBe(g);
    expect(redis("redis://redis.example.test:6379/1")).not.toBe(g);
    expect(redis("redis://other.example.test:6379/0")).not.toBe(g);
    expect(sqlite("/data")).not.toBe(sqlite("/other"));
    expect(g).not.toContain(KEY.slice(0, 8));
  });

  test("no key known (a store handed in): a group of this process alone", () => {
    const alone = () => browserGroup({ store: { url: null }, data: { dir: null } }, undefined);
    expect(alone()).not.toBe(alone());
  });

  test("records in memory: a group of this process alone, whatever the key (two such servers never end each other's browsers)", () => {
    const memory = () => browserGroup({ store: { url: null }, data: { dir: null } }, KEY);
    expect(memory()).toMatch(/^[0-9a-f]{16}$/);
    expect(memory()).not.toBe(memory());
  });
});
