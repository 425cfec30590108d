// Where a flow's parts are written: the line of a path into the YAML document, the refusals that
// name a step and its line, and the one pass over the document's nodes that refuses what YAML allows.
import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, visit } from "yaml";
import type { z } from "zod";
import { type AppError, badInput } from "../errors.ts";
import type { Flow } from "./schema.ts";

export type Path = ReadonlyArray<string | number>;

/** A flow read and checked, with where each of its parts is written. */
export class ParsedFlow {
  constructor(
    readonly flow: Flow,
    readonly text: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The line `path` (into the document) is written on; the nearest enclosing part's when it is absent. */
  lineAt(path: Path): number {
    return lineAt(this.doc, this.lines, path);
  }

  /** A 400 located at `path`: `step 2 (navigate) at line 7: …` or `line 3: …`. */
  refuse(path: Path, what: string, field?: string): AppError {
    return badInput(`${locate(this.flow.steps, path, this.lineAt(path))}: ${what}`, field);
  }
}

export function lineAt(doc: Document, lines: LineCounter, path: Path): number {
  let node: unknown = doc.contents;
  let line = lineOf(node, lines) || 1;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      line = lineOf(pair.key, lines) || line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number") {
      node = node.items[seg];
      if (!node) break;
      line = lineOf(node, lines) || line;
    } else break;
  }
  return line;
}

function lineOf(node: unknown, lines: LineCounter): number {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? lines.linePos(range[0]).line : 0;
}

export function locate(steps: ReadonlyArray<{ tool?: unknown }>, path: Path, line: number): string {
  if (path[0] === "steps" && typeof path[1] === "number") {
    const tool = steps[path[1]]?.tool;
    return `step ${path[1] + 1}${typeof tool === "string" && tool ? ` (${tool})` : ""} at line ${line}`;
  }
  return `line ${line}`;
}

/**
 * One pass over the document: a key written twice in a mapping, a `__proto__` key, or an alias
 * (`*name`: an alias bomb grows a few lines into gigabytes), is refused at its line.
 */
export function checkNodes(doc: Document, lines: LineCounter): void {
  const pos = (node: unknown) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? lines.linePos(range[0]) : { line: 1, col: 1 };
  };
  visit(doc, {
    Alias(_, node) {
      throw badInput(
        `line ${pos(node).line}: aliases (*${node.source}) are not allowed in a flow: write the value out`,
      );
    },
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        // Parsed into an object, this key would set its prototype rather than name a field.
        if (key === "__proto__") {
          throw badInput(`line ${pos(pair.key).line}: "__proto__" cannot be a key in a flow`);
        }
        if (seen.has(key)) {
          // yaml's own words for it, as uniqueKeys said them.
          const { line, col } = pos(pair.key ?? map);
          throw badInput(`invalid YAML at line ${line}, column ${col}: Map keys must be unique`);
        }
        seen.add(key);
      }
    },
  });
}

/** The path to point at for an issue: an unknown key's own line rather than its object's. */
export function issuePath(prefix: Path, issue: z.core.$ZodIssue): Path {
  const path = [...prefix, ...(issue.path as Array<string | number>)];
  if (issue.code === "unrecognized_keys" && issue.keys[0]) path.push(issue.keys[0]);
  return path;
}
