// Routes live in the location hash: #/{org}/{section}[/{item}], so links to a tileset or style can be
// shared. Every navigation bumps state.view, which stops the pollers and callbacks of the page left.
// A page refused with 403/404 may mean the user left the organization meanwhile (removed in another
// tab or by an admin): the session's organizations are read again and, if so, the page says it plainly.
// A page holding something that would be lost (a key's secret shown once) sets a leave guard: while it
// says so, a navigation asks in the confirm dialog first and closing or reloading the tab gets the
// browser's beforeunload prompt. Every navigation that goes through drops the guard.
import { api } from "./api.js";
import { $, fill, h } from "./dom.js";
import { destroyMap } from "./map.js";
import { enc, state } from "./state.js";
import { confirmDialog, errorBox, pageHead } from "./widgets.js";

let sections = {};
let orgsChanged = null;
/** Who redraws the organization picker when the session's organizations change (set by the entry module). */
export function onOrgsChanged(handler) {
  orgsChanged = handler;
}
/** A message for the next page shown (the organization that was left), shown once above it. */
let notice = null;
/** The page renderers by section name, `(main, item, view) => Promise`; set once by the entry module. */
export function setSections(renderers) {
  sections = renderers;
}

/**
 * The current page's leave guard: a function giving `[title, text, button label]` of the question to ask
 * before leaving the page, or null when nothing would be lost (any more). Set by a view for the page it
 * rendered; dropped by the next navigation that goes through, so a guard never outlives its page.
 */
let leaveGuard = null;
export function setLeaveGuard(guard) {
  leaveGuard = guard;
}
/** The hash and organization of the page shown: where a refused navigation goes back to. */
let onScreen = { hash: null, org: null };
/** The history position of the page shown (history.state.consoleAt of its entry). */
let at = 0;
let asking = false;

// A tab closed or reloaded while the guard holds gets the browser's own "Leave site?" prompt.
window.addEventListener("beforeunload", (e) => {
  if (!state.session || !leaveGuard?.()) return;
  e.preventDefault();
  e.returnValue = "";
});

export function go(section, item) {
  const parts = ["", state.org || "", section];
  if (item) parts.push(item);
  const hash = "#" + parts.map((p) => enc(p)).join("/");
  if (location.hash === hash) route();
  else location.hash = hash;
}

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map((p) => decodeURIComponent(p));
  return { org: parts[0] || null, section: parts[1] || "overview", item: parts[2] || null };
}

/**
 * Shows the page the location hash names (on every hashchange, and from go()). While the leave guard
 * holds, the navigation is undone first (a new history entry dropped, a Back or Forward traversed back)
 * and the dialog asks; confirmed, it goes on to where it was headed.
 */
export function route(event) {
  if (!state.session) return;
  const question = leaveGuard?.();
  if (!question) return show();
  const target = location.hash;
  const to = history.state?.consoleAt;
  // The hashchange of an undone navigation: back on the page shown, nothing to ask.
  if (event && target === onScreen.hash && to === at) return;
  // A traversal comes back by the same number of steps; a new entry (no stamp yet) is dropped.
  const back = typeof to === "number" ? at - to : -1;
  if (back !== 0) history.go(back);
  else if (target !== onScreen.hash) history.replaceState(history.state, "", onScreen.hash);
  restorePicker();
  if (asking) return;
  asking = true;
  confirmDialog(...question)
    .then((leave) => {
      if (!leave) return;
      leaveGuard = null;
      if (back === 0 && target === onScreen.hash) show();
      else if (typeof to === "number") history.go(-back);
      else location.hash = target;
    })
    .finally(() => (asking = false));
}

/** Puts a redirect in place of the current history entry (keeping its stamp) and shows it. */
function replaceHash(hash) {
  history.replaceState(history.state, "", hash);
  route();
}

/** Stamps the history entry shown with its position, so a Back or Forward refused can be undone. */
function stamp() {
  const s = history.state?.consoleAt;
  at = typeof s === "number" ? s : onScreen.hash === null ? 0 : at + 1;
  if (s !== at) history.replaceState({ ...history.state, consoleAt: at }, "");
}

/** The organization picker (and state.org, which its change sets before navigating) back on the page shown. */
function restorePicker() {
  if (onScreen.hash === null) return;
  state.org = onScreen.org;
  $("#org-select").value = onScreen.org || "";
}

function show() {
  leaveGuard = null;
  destroyMap();
  const view = ++state.view;
  let { org, section, item } = parseHash();
  const orgs = state.session.orgs;
  if (section === "new-org" || !orgs.length) {
    if (!["new-org", "users", "fonts", "geocoding", "elevation", "setup"].includes(section) || (!state.session.user.is_admin && section !== "new-org")) section = "new-org";
  }
  if (section !== "new-org" && orgs.length && !orgs.some((o) => o.slug === org)) {
    const keep = state.org && orgs.some((o) => o.slug === state.org) ? state.org : orgs[0].slug;
    replaceHash(`#/${enc(keep)}/${enc(section)}${item ? "/" + enc(item) : ""}`);
    return;
  }
  if (org && orgs.some((o) => o.slug === org)) state.org = org;
  stamp();
  onScreen = { hash: location.hash, org: state.org };
  $("#org-select").value = state.org || "";
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("active", a.dataset.section === section);
    a.href = `#/${enc(state.org || "")}/${a.dataset.section}`;
  }
  document.title = pageTitle(section, item);
  const main = $("#main");
  fill(main, h("p.muted", "Loading…"));
  const render = sections[section] || sections.overview;
  const shown = notice;
  notice = null;
  Promise.resolve(render(main, item, view))
    .then(() => {
      if (view !== state.view) return;
      if (shown) main.prepend(h("div.alert.alert-warn", { id: "org-notice", role: "alert" }, shown));
      focusPage(main);
    })
    .catch(async (err) => {
      if (view !== state.view) return;
      if ((err.status === 403 || err.status === 404) && state.org && (await orgLost(state.org))) return;
      if (view !== state.view) return;
      fill(main, pageHead("Something went wrong"), errorBox(err));
      focusPage(main);
    });
}

/**
 * Puts keyboard focus on the new page, so Tab continues there and a screen reader reads it, instead of
 * staying on the sidebar link or falling back to the top of the document when the link clicked was part
 * of the page replaced. A page that focuses a field itself keeps it, and so does the organization picker
 * (arrow keys on it change the organization, and each change is a navigation).
 */
function focusPage(main) {
  const active = document.activeElement;
  if (main.contains(active) || active?.id === "org-select") return;
  main.focus({ preventScroll: true });
}

/** True when `org` is no longer among the session's organizations: the picker and the page follow. */
async function orgLost(org) {
  let session;
  try {
    session = await api("GET", "/api/v1/session");
  } catch {
    return false;
  }
  state.session = session;
  orgsChanged?.();
  if (session.orgs.some((o) => o.slug === org)) return false;
  state.org = null;
  notice = `You are no longer a member of ${org}, so its pages are closed to you; it was taken out of the organization list.`;
  const next = session.orgs[0]?.slug;
  replaceHash(next ? `#/${enc(next)}/overview` : "#//new-org");
  return true;
}

/** "parks · Tilesets · acme · Mapstead console": the section (and item) first, as tabs and history show it. */
function pageTitle(section, item) {
  const link = document.querySelector(`#nav a[data-section="${section}"]`);
  const name = link ? link.firstChild.textContent.trim() : section === "new-org" ? "New organization" : "Overview";
  return [item, name, section === "new-org" ? null : state.org, "Mapstead console"].filter(Boolean).join(" · ");
}
