// Page side: whether the page is on its way out after a gesture. A link followed or a form
// submitted starts its navigation a moment after the gesture; the server waits for it only when
// the page says one may come ("maybe"). The listeners live in the sandbox, out of the page's reach.

let armed = false;
let state: "maybe" | null = null;

/** Starts watching (once per document) and forgets what an earlier gesture left. */
export function arm(): void {
  state = null;
  if (armed) return;
  armed = true;
  const maybe = (e: Event) => {
    if (!e.defaultPrevented) state = "maybe";
  };
  window.addEventListener("submit", (e) => {
    const form = e.target as HTMLFormElement | null;
    if (!form?.target || form.target === "_self") maybe(e);
  });
  window.addEventListener("click", (e) => {
    const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (a && (!a.getAttribute("target") || a.getAttribute("target") === "_self")) {
      if (!(a.getAttribute("href") ?? "").startsWith("#") && !stays(a as HTMLAnchorElement)) maybe(e);
    }
  });
}

// Links that leave the page where it is: a javascript: one (`javascript:void(0)` beside a click
// handler, common on older sites) runs script, a fragment of the page scrolls, and a download link
// the browser honours (same origin, or a blob: or data: url) saves a file; a cross-origin download
// link is followed.
function stays(a: HTMLAnchorElement): boolean {
  if (a.protocol === "javascript:") return true;
  // A fragment of this very page, written whole (`/guide#setup` on /guide): the page scrolls.
  if (a.hash !== "" && a.href.split("#")[0] === location.href.split("#")[0]) return true;
  if (!a.hasAttribute("download")) return false;
  return a.protocol === "blob:" || a.protocol === "data:" || a.origin === location.origin;
}

export function leaving(): "maybe" | null {
  return state;
}

/** After a gesture: whether the page may be leaving, and its title, in one call. */
export function afterGesture(): { leaving: "maybe" | null; title: string } {
  return { leaving: state, title: String(document.title) };
}
