// Folds: a row's open or shut is the reader's once chosen, kept per row id in localStorage; a row
// never folded takes the default the server drew (the first row open, the rest shut). A row linked
// from elsewhere (History's saved pill) opens and scrolls into view, once.
(() => {
  const KEY = "selenium-flow:folds";
  let folds = {};
  try {
    folds = JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {}
  const save = () => {
    try {
      localStorage.setItem(KEY, JSON.stringify(folds));
    } catch {}
  };
  const HEAD = "section.section > .head > button[aria-expanded]";
  const show = (button, open) => {
    button.setAttribute("aria-expanded", String(open));
    const body = document.getElementById(button.getAttribute("aria-controls"));
    if (body) body.hidden = !open;
  };
  const apply = () => {
    for (const button of document.querySelectorAll(HEAD)) {
      const section = button.closest("section.section");
      if (section.hasAttribute("data-linked")) {
        section.removeAttribute("data-linked");
        folds[section.id] = true;
        show(button, true);
        section.scrollIntoView({ block: "start" });
      } else {
        if (!(section.id in folds)) folds[section.id] = button.getAttribute("aria-expanded") === "true";
        show(button, folds[section.id]);
      }
    }
    save();
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest?.(HEAD);
    if (!button) return;
    const section = button.closest("section.section");
    folds[section.id] = button.getAttribute("aria-expanded") !== "true";
    show(button, folds[section.id]);
    save();
  });
  document.addEventListener("htmx:after:swap", apply);
  document.addEventListener("DOMContentLoaded", apply);
})();

// A person in the loop (workspace page): the answer box and Hand back, and Take over, which sends
// the live picture's clicks (scaled from the picture to the viewport), keys and wheel to the page.
// Inputs go one at a time, in order; keys typed in a row go as one text once typing pauses (one
// timeline entry, not one per key). A request that fails is said in #personError.
(() => {
  const PAUSE_MS = 600;
  const take = () => document.querySelector("#takeOver");
  const say = (text) => {
    const line = document.querySelector("#personError");
    if (!line) return;
    line.textContent = text;
    line.hidden = !text;
  };
  // Why, from the server's answer: its error (said whole when it names the failure itself).
  const failure = async (res, what) => {
    if (res.status === 401) return `${what}: signed out. Sign in again.`;
    let error = `the server answered ${res.status}`;
    try {
      const body = await res.json();
      if (body && typeof body.error === "string") error = body.error;
    } catch {}
    return /^the \w+ was not delivered/.test(error)
      ? error[0].toUpperCase() + error.slice(1)
      : `${what}: ${error}`;
  };
  const post = async (url, body, what) => {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      say(res.ok ? "" : await failure(res, what));
    } catch {
      say(`${what}: the server did not answer`);
    }
  };
  let queue = Promise.resolve();
  const send = (body) => {
    const url = take()?.dataset.input;
    if (url) queue = queue.then(() => post(url, body, "Not sent"));
  };
  let typed = "";
  let pause = 0;
  const flush = () => {
    clearTimeout(pause);
    if (typed) send({ text: typed });
    typed = "";
  };
  const driving = () => take()?.querySelector(".take")?.getAttribute("aria-pressed") === "true";
  const setDriving = (on) => {
    const t = take();
    if (!t) return;
    if (!on) flush();
    const button = t.querySelector(".take");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Hand back" : "Take over";
    t.querySelector(".send-text").hidden = !on;
    t.querySelector(".how").hidden = !on;
    const view = document.querySelector("#liveView");
    if (view) {
      view.classList.toggle("driving", on);
      if (on) view.setAttribute("tabindex", "0");
      else view.removeAttribute("tabindex");
      if (on) view.focus();
    }
  };
  const NAMED = new Set([
    "Enter",
    "Tab",
    "Backspace",
    "Delete",
    "Escape",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
    "PageUp",
    "PageDown",
  ]);
  // A point of the picture as a point of the page's viewport.
  const at = (img, event) => {
    const box = img.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) * img.naturalWidth) / box.width,
      y: ((event.clientY - box.top) * img.naturalHeight) / box.height,
    };
  };
  document.addEventListener("click", (event) => {
    if (event.target.closest?.("#takeOver .take")) return setDriving(!driving());
    const img = event.target.closest?.("#liveScreen img");
    if (!img || !driving()) return;
    flush();
    send({ click: at(img, event) });
  });
  document.addEventListener("keydown", (event) => {
    if (!driving() || !event.target.closest?.("#liveView")) return;
    if (NAMED.has(event.key)) {
      flush();
      send({ key: event.key });
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) {
      typed += event.key;
      clearTimeout(pause);
      pause = setTimeout(flush, PAUSE_MS);
    } else return;
    event.preventDefault();
  });
  document.addEventListener(
    "wheel",
    (event) => {
      const img = event.target.closest?.("#liveScreen img");
      if (!img || !driving()) return;
      event.preventDefault();
      flush();
      send({ scroll: { ...at(img, event), dx: Math.round(event.deltaX), dy: Math.round(event.deltaY) } });
    },
    { passive: false },
  );
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches?.("#takeOver .send-text")) {
      event.preventDefault();
      const text = form.elements.text.value;
      flush();
      if (text) send({ text });
      form.reset();
      return;
    }
    const asking = form.closest?.("#wsAsk");
    if (!asking) return;
    event.preventDefault();
    setDriving(false);
    // After the inputs still on their way: the agent gets the page as the person left it.
    const text = form.elements.text.value;
    queue = queue.then(() => post(asking.dataset.answer, { text }, "Not delivered"));
  });
})();
