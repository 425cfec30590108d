// The action table: every browser action, once. Surfaces, OpenAPI and docs are built from it.
import type { AnyAction } from "./define.ts";
import { navigate } from "./navigate.ts";
import { endBrowser, openSession } from "./session.ts";

export const ACTIONS: readonly AnyAction[] = [openSession, endBrowser, navigate];
