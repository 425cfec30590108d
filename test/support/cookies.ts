import type { StoredCookie } from "../../src/store/record.ts";

/** A stored cookie with plain defaults; `over` changes any field. */
export function cookie(name: string, domain: string, over: Partial<StoredCookie> = {}): StoredCookie {
  return {
    name,
    value: `v-${name}`,
    value_type: "string",
    domain,
    path: "/",
    http_only: false,
    secure: true,
    same_site: "lax",
    expiry: null,
    ...over,
  };
}
