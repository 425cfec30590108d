// A person's input body: exactly one kind it knows, read against that kind's own schema.
import { expect, test } from "bun:test";
import { readInput } from "../../../src/person/admin.ts";

const problem = (raw: unknown) => {
  try {
    readInput(raw);
    return null;
  } catch (err) {
    return { status: (err as { status?: number }).status, message: (err as Error).message };
  }
};

test("a name every object has (constructor, __proto__, toString) is no kind: a 400 saying what to send", () => {
  for (const raw of ['{"constructor":{"x":1}}', '{"__proto__":{"x":1}}', '{"toString":"a"}']) {
    expect(problem(JSON.parse(raw))).toEqual({
      status: 400,
      message: expect.stringContaining("send exactly one of click {x, y}, text, key or scroll"),
    });
  }
});

test("each kind it knows is read as sent", () => {
  expect(readInput({ click: { x: 10, y: 20 } })).toEqual({ click: { x: 10, y: 20 } });
  expect(readInput({ text: "hello" })).toEqual({ text: "hello" });
  expect(readInput({ key: "Enter" })).toEqual({ key: "Enter" });
  expect(problem({ text: "a", key: "Enter" })?.status).toBe(400);
});
