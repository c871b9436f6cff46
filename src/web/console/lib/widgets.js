// Small pieces every page uses: badges, toasts, the confirmation dialog, copy buttons, URL rows, error
// boxes and page headings.
import { $, busyWhile, fill, h } from "./dom.js";

export const badge = (text, kind = text) => h("span", { class: `badge badge-${kind}` }, text);

export function toast(message, kind = "") {
  const t = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  $("#toasts").append(t);
  setTimeout(() => t.remove(), kind === "error" ? 7000 : 3500);
}

/**
 * Opens the page's one <dialog>; resolves true when the user confirms. With `action` (a function
 * returning a promise, the request the confirmation is for), the dialog stays open while it runs, its
 * button busy; a refusal is shown in the dialog (the user may retry or cancel) and only a success
 * closes it with true.
 */
export function confirmDialog(title, text, okLabel = "Confirm", action = null) {
  const dlg = $("#confirm-dialog");
  const form = dlg.querySelector("form");
  const ok = $("#confirm-ok");
  const err = $("#confirm-error");
  $("#confirm-title").textContent = title;
  $("#confirm-text").textContent = text;
  ok.textContent = okLabel;
  err.hidden = true;
  err.replaceChildren();
  let running = null;
  const onSubmit = (e) => {
    if (!action || e.submitter !== ok) return;
    e.preventDefault();
    if (running) return;
    err.hidden = true;
    running = busyWhile(form, action())
      .then(() => dlg.close("ok"))
      .catch((ex) => {
        fill(err, errorBox(ex));
        err.hidden = false;
      })
      .finally(() => (running = null));
  };
  // Escape does not close the dialog while its request runs: its answer would go unseen.
  const onCancel = (e) => running && e.preventDefault();
  form.addEventListener("submit", onSubmit);
  dlg.addEventListener("cancel", onCancel);
  dlg.returnValue = "";
  dlg.showModal();
  return new Promise((resolve) =>
    dlg.addEventListener(
      "close",
      () => {
        form.removeEventListener("submit", onSubmit);
        dlg.removeEventListener("cancel", onCancel);
        resolve(dlg.returnValue === "ok");
      },
      { once: true },
    ),
  );
}

async function copy(text, what = "Copied") {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API needs a secure context; fall back to a selection copy on plain http.
    const ta = h("textarea", { readonly: true });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
  toast(`${what} to the clipboard`);
}
/** A Copy button for `text`; `onCopied` runs once it was copied (the secret of a new key stops guarding the page). */
export const copyButton = (text, what, onCopied) =>
  h("button.btn.btn-small", { type: "button", onclick: () => copy(text, what).then(() => onCopied?.()) }, "Copy");

export function urlRow(label, url, note) {
  return h(
    "div.url-row",
    h("span.lbl", label),
    url ? h("code", { "data-url": label }, url) : h("span.muted", note || "—"),
    url ? h("div.actions", copyButton(url, `${label} copied`), h("a.btn.btn-small", { href: url, target: "_blank", rel: "noopener" }, "Open")) : h("span"),
  );
}

/**
 * Under the URLs of a private tileset or style: copied bare into a map client they answer 404, which
 * looks like a wrong URL; say what they need (never ?access_token=, which lands in caches and histories).
 */
export const privateUrlsNote = (visibility) =>
  visibility === "private"
    ? h(
        "p.alert.alert-info.private-urls",
        "Private: these URLs answer 404 to anyone but members signed in here and requests with an API key of this organization that has the maps:read scope, sent in the X-API-Key header (in MapLibre GL JS through transformRequest). They do not take ?access_token=.",
      )
    : null;

/** An alert listing an API error: message, then each {path, message} of 422 details. */
export function errorBox(err) {
  const box = h("div.alert.alert-error", { role: "alert" }, h("strong", err.message || String(err)));
  const details = Array.isArray(err.details) ? err.details : [];
  if (details.length) {
    box.append(
      h(
        "ul",
        details.slice(0, 100).map((d) => h("li", d && typeof d === "object" ? [d.path ? h("code", d.path) : null, d.path ? " " : "", d.message ?? JSON.stringify(d)] : String(d))),
      ),
    );
  }
  return box;
}

export function showError(slot, err) {
  fill(slot, errorBox(err));
  slot.hidden = false;
}

export function pageHead(title, subtitle, ...actions) {
  return h("div.page-head", h("div", h("h1", title), subtitle ? h("p.muted", subtitle) : null), actions.length ? h("div.actions", actions) : null);
}
