// Building DOM without HTML strings: every text goes in as a text node, so nothing the API returns can
// inject markup (and the CSP forbids inline script anyway). A form's submit handler and a button's click
// handler that return a promise make their element busy until it settles (see busyWhile), so a double
// click or a slow network never sends a request twice.

/** h("div.card", {onclick}, child, ...) builds elements; strings become text nodes (never HTML). */
export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onsubmit" && el.tagName === "FORM") el.addEventListener("submit", busyHandler(el, v));
    else if (k === "onclick" && el.tagName === "BUTTON") el.addEventListener("click", busyHandler(el, v));
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (k === "text") el.textContent = v;
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

/** Appends children, flattening arrays and skipping null/undefined/false. */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces an element's children; like append, skips null/false and flattens arrays. */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

export const $ = (sel, root = document) => root.querySelector(sel);

/** The buttons a busy form or button disables: a form's submit buttons, or the button itself. */
const busyButtons = (el) => (el.tagName === "FORM" ? [...el.querySelectorAll("button:not([type]), button[type=submit]")] : [el]);

/**
 * Marks `el` (a form or a button) busy while `promise` runs: aria-busy on it, its buttons disabled and
 * aria-busy; afterwards the buttons that were enabled before are enabled again. Resolves like `promise`.
 */
export function busyWhile(el, promise, buttons = busyButtons(el).filter((b) => !b.disabled)) {
  el.setAttribute("aria-busy", "true");
  for (const b of buttons) {
    b.disabled = true;
    b.setAttribute("aria-busy", "true");
  }
  const done = () => {
    el.removeAttribute("aria-busy");
    for (const b of buttons) {
      b.disabled = false;
      b.removeAttribute("aria-busy");
    }
  };
  return Promise.resolve(promise).finally(done);
}

/** A submit or click handler that ignores the event while the previous one still runs. */
function busyHandler(el, handler) {
  return (e) => {
    if (el.getAttribute("aria-busy") === "true") {
      e.preventDefault();
      return;
    }
    // The buttons enabled now, before a handler that disables some itself (an upload) runs.
    const enabled = busyButtons(el).filter((b) => !b.disabled);
    const result = handler(e);
    if (result && typeof result.then === "function") busyWhile(el, result, enabled).catch(() => {});
    return result;
  };
}
