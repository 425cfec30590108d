// Step tools of a test's own beside the action table's, for a server's flows: the table's `get` and
// `names` answered with them first, so the step table keeps no door only tests use.
import type { AnyAction } from "../../src/actions/action.ts";
import type { ToolTable } from "../../src/flows/tools.ts";

export function addStepTools(tools: ToolTable, own: readonly AnyAction[]): void {
  const get = tools.get.bind(tools);
  const names = tools.names.bind(tools);
  tools.get = (name) => own.find((a) => a.name === name) ?? get(name);
  tools.names = () => [...new Set([...names(), ...own.map((a) => a.name)])].sort();
}
