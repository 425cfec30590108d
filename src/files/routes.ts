// The signed file routes: `GET /file/<workspace>/<folder>/<name>?expires=…&sig=…`, and a recording's
// `GET /recordings/<workspace>/<name>?…`. The signature in its own URL authorises it, so it needs no
// bearer token (a person opens it from the admin page, a player seeks in it). Disk files stream
// with Range; downloads come from the Grid whole.
import { Elysia } from "elysia";
import { AppError, forbidden, notFound } from "../errors.ts";
import { workspaceNameProblem } from "../kit/names.ts";
import type { Log } from "../log.ts";
import { fileNameProblem } from "./file-names.ts";
import { LINK_FOLDERS, LINK_PREFIX, type LinkFolder, RECORDING_PREFIX } from "./links.ts";
import type { Files } from "./service.ts";
import { FILES_OFF } from "./uris.ts";

export const LINK_REFUSED =
  "this link is not valid for this file: read the file's listing again for a fresh link";
export const LINK_EXPIRED = "this link has expired: read the file's listing again for a fresh link";

/** The workspace, folder and name a signed path names, decoded; null when it names none. */
export function parseLinkPath(
  pathname: string,
): { workspace: string; folder: LinkFolder; name: string } | null {
  // `/recordings/<workspace>/<name>` names the same file as `/file/<workspace>/recordings/<name>`.
  const [, top, ...rest] = pathname.split("/");
  const parts = `/${top}` === RECORDING_PREFIX ? [rest[0], "recordings", ...rest.slice(1)] : rest;
  if (`/${top}` !== RECORDING_PREFIX && `/${top}` !== LINK_PREFIX) return null;
  if (parts.length !== 3) return null;
  let workspace: string;
  let name: string;
  try {
    workspace = decodeURIComponent(parts[0]!);
    name = decodeURIComponent(parts[2]!);
  } catch {
    return null;
  }
  if (!(LINK_FOLDERS as readonly string[]).includes(parts[1]!)) return null;
  return { workspace, folder: parts[1] as LinkFolder, name };
}

/** What a signed link is served with: the files, and the log a recording's reading is noted in. */
interface Serving {
  readonly files: Files;
  readonly log: Log;
}

export async function serveSigned(services: Serving, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const named = parseLinkPath(url.pathname);
  if (!named) throw notFound(`no file at ${url.pathname}: a file's url comes from its listing`);
  const { workspace, folder, name } = named;
  // A name that would leave its folder never reaches a path, signed or not.
  if (workspaceNameProblem(workspace) || fileNameProblem(name)) {
    throw new AppError("bad_input", "this link names no file a workspace can hold: it is refused");
  }
  const files = services.files;
  const verdict = files.links.verify(
    workspace,
    folder,
    name,
    url.searchParams.get("expires"),
    url.searchParams.get("sig"),
  );
  if (verdict === "bad") throw forbidden(LINK_REFUSED);
  if (verdict === "expired") throw new AppError("forbidden", LINK_EXPIRED);
  if (folder !== "downloads" && !files.store) throw notFound(FILES_OFF);
  if (folder === "recordings") services.log.info(`reading recording ${name} for ${workspace}`);
  const maxAge = files.links.freshFor(url.searchParams.get("expires")!);
  return files.serve(request, workspace, folder, name, maxAge);
}

export function fileRoutes(services: Serving) {
  const serve = ({ request }: { request: Request }) => serveSigned(services, request);
  return new Elysia({ name: "signed-files" })
    .get(`${LINK_PREFIX}/*`, serve, { parse: "none" })
    .get(`${RECORDING_PREFIX}/*`, serve, { parse: "none" });
}
