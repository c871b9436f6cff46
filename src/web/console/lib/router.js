// Routes live in the location hash: #/{org}/{section}[/{item}], so links to a tileset or style can be
// shared. Every navigation bumps state.view, which stops the pollers and callbacks of the page left.
import { $, fill, h } from "./dom.js";
import { destroyMap } from "./map.js";
import { enc, state } from "./state.js";
import { errorBox, pageHead } from "./widgets.js";

let sections = {};
/** The page renderers by section name, `(main, item, view) => Promise`; set once by the entry module. */
export function setSections(renderers) {
  sections = renderers;
}

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

export function route() {
  if (!state.session) return;
  destroyMap();
  const view = ++state.view;
  let { org, section, item } = parseHash();
  const orgs = state.session.orgs;
  if (section === "new-org" || !orgs.length) {
    if (!["new-org", "fonts", "geocoding", "elevation", "setup"].includes(section) || (!state.session.user.is_admin && section !== "new-org")) section = "new-org";
  }
  if (section !== "new-org" && orgs.length && !orgs.some((o) => o.slug === org)) {
    const keep = state.org && orgs.some((o) => o.slug === state.org) ? state.org : orgs[0].slug;
    location.replace(`#/${enc(keep)}/${enc(section)}${item ? "/" + enc(item) : ""}`);
    return;
  }
  if (org && orgs.some((o) => o.slug === org)) state.org = org;
  $("#org-select").value = state.org || "";
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("active", a.dataset.section === section);
    a.href = `#/${enc(state.org || "")}/${a.dataset.section}`;
  }
  const main = $("#main");
  fill(main, h("p.muted", "Loading…"));
  const render = sections[section] || sections.overview;
  Promise.resolve(render(main, item, view)).catch((err) => {
    if (view !== state.view) return;
    fill(main, pageHead("Something went wrong"), errorBox(err));
  });
}
