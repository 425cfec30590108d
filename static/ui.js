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
(() => {
  const post = (url, body) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
  const take = () => document.querySelector("#takeOver");
  const driving = () => take()?.querySelector(".take")?.getAttribute("aria-pressed") === "true";
  const setDriving = (on) => {
    const t = take();
    if (!t) return;
    t.querySelector(".take").setAttribute("aria-pressed", String(on));
    t.querySelector(".send-text").hidden = !on;
    const view = document.querySelector("#liveView");
    if (view) {
      view.classList.toggle("driving", on);
      if (on) view.setAttribute("tabindex", "0");
      else view.removeAttribute("tabindex");
      if (on) view.focus();
    }
  };
  const send = (body) => {
    const url = take()?.dataset.input;
    if (url) post(url, body).catch(() => undefined);
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
  document.addEventListener("click", (event) => {
    if (event.target.closest?.("#takeOver .take")) return setDriving(!driving());
    const img = event.target.closest?.("#liveScreen img");
    if (!img || !driving()) return;
    const box = img.getBoundingClientRect();
    const sx = img.naturalWidth / box.width;
    const sy = img.naturalHeight / box.height;
    send({ click: { x: (event.clientX - box.left) * sx, y: (event.clientY - box.top) * sy } });
  });
  document.addEventListener("keydown", (event) => {
    if (!driving() || !event.target.closest?.("#liveView")) return;
    if (NAMED.has(event.key)) send({ key: event.key });
    else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) send({ text: event.key });
    else return;
    event.preventDefault();
  });
  document.addEventListener(
    "wheel",
    (event) => {
      const img = event.target.closest?.("#liveScreen img");
      if (!img || !driving()) return;
      event.preventDefault();
      const box = img.getBoundingClientRect();
      const sx = img.naturalWidth / box.width;
      const sy = img.naturalHeight / box.height;
      send({
        scroll: {
          x: (event.clientX - box.left) * sx,
          y: (event.clientY - box.top) * sy,
          dx: Math.round(event.deltaX),
          dy: Math.round(event.deltaY),
        },
      });
    },
    { passive: false },
  );
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches?.("#takeOver .send-text")) {
      event.preventDefault();
      const text = form.elements.text.value;
      if (text) send({ text });
      form.reset();
      return;
    }
    const asking = form.closest?.("#wsAsk");
    if (!asking) return;
    event.preventDefault();
    post(asking.dataset.answer, { text: form.elements.text.value }).catch(() => undefined);
    setDriving(false);
  });
})();
