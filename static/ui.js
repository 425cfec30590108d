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
