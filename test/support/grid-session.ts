// Whether the test Grid still holds a browser, asked of the Grid itself (not of a server).
import { testGridUrl } from "./env.ts";

/** Whether the Grid still holds browser `id`. */
export async function gridHolds(id: string): Promise<boolean> {
  const res = await fetch(`${testGridUrl}/session/${id}/url`);
  const body = (await res.json().catch(() => null)) as { value?: { error?: string } } | null;
  return body?.value?.error !== "invalid session id";
}

/**
 * Whether browser `id` leaves the Grid within 10 s; one still there is ended here (the next test
 * files need its slot) and said so.
 */
export async function leavesGrid(id: string): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (!(await gridHolds(id))) return true;
    await Bun.sleep(250);
  }
  await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" }).catch(() => undefined);
  return false;
}
