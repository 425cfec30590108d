// The person's side of /secrets/enter/<token>: the page opened as a browser does, and its form posted.

/** Opens the page as a browser does: its HTML, the cookie it set and the form's own token. */
export async function openEntry(link: string) {
  const res = await fetch(link);
  const html = await res.text();
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { status: res.status, html, cookie, csrf };
}

/** Posts the page's form as the browser that opened it would (its Origin, its cookie). */
export function postEntry(
  link: string,
  form: Record<string, string | string[]>,
  headers: Record<string, string>,
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
  return fetch(link, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
}
