// The flows fields of the admin's workspace row: flows_rev and counts.flows.
import type { RowContext } from "../admin/rows.ts";
import type { FlowsNeeds } from "./admin.ts";

export const flowsPart = ({ services, key }: RowContext<FlowsNeeds>) => {
  const { store } = services.flows;
  if (!store.enabled) return { flows_rev: "", counts: { flows: 0 } };
  return { flows_rev: store.rev(key), counts: { flows: store.list(key).length } };
};
