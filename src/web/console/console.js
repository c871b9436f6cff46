// Mapstead management console: native ES modules, no framework, no build step. Talks only to this
// origin's management API. lib/ holds the DOM helpers, the API client (CSRF token in memory), the
// hash router and the map preview; views/ one module per page. This entry module wires them up.
import { onSessionEnded } from "./lib/api.js";
import { $, h } from "./lib/dom.js";
import { go, onOrgsChanged, route, setSections } from "./lib/router.js";
import { enc, state } from "./lib/state.js";
import { renderElevation } from "./views/elevation.js";
import { renderFonts } from "./views/fonts.js";
import { renderGeocoding } from "./views/geocoding.js";
import { bindLogin, resumeSession, showLogin } from "./views/login.js";
import { renderKeys } from "./views/keys.js";
import { renderMembers } from "./views/members.js";
import { renderNewOrg, renderOrgPicker } from "./views/orgs.js";
import { renderOverview } from "./views/overview.js";
import { renderSetup } from "./views/setup.js";
import { renderStyles } from "./views/styles.js";
import { renderTilesets } from "./views/tilesets.js";
import { renderUsers } from "./views/users.js";

setSections({ overview: renderOverview, tilesets: renderTilesets, styles: renderStyles, keys: renderKeys, members: renderMembers, users: renderUsers, fonts: renderFonts, geocoding: renderGeocoding, elevation: renderElevation, setup: renderSetup, "new-org": renderNewOrg });
onSessionEnded(showLogin);
onOrgsChanged(renderOrgPicker);

function startApp(session) {
  state.session = session;
  $("#login-view").hidden = true;
  $("#app-view").hidden = false;
  $("#user-email").textContent = session.user.email + (session.user.is_admin ? " (admin)" : "");
  for (const a of document.querySelectorAll("#nav a[data-admin]")) {
    a.hidden = !session.user.is_admin;
    if (!a.querySelector(".tag")) a.append(h("span.tag", "admin"));
  }
  renderOrgPicker();
  route();
}

async function boot() {
  bindLogin(startApp);
  $("#new-org-button").addEventListener("click", () => {
    location.hash = `#/${enc(state.org || "")}/new-org`;
  });
  $("#org-select").addEventListener("change", (e) => {
    state.org = e.target.value;
    go("overview");
  });
  // Narrow screens: the sidebar is a top bar whose menu opens with this button and closes on navigation.
  const menu = $("#menu-button");
  const setMenu = (open) => {
    document.body.classList.toggle("menu-open", open);
    menu.setAttribute("aria-expanded", String(open));
  };
  menu.addEventListener("click", () => setMenu(!document.body.classList.contains("menu-open")));
  window.addEventListener("hashchange", () => setMenu(false));
  window.addEventListener("hashchange", route);
  try {
    const session = await resumeSession();
    if (session) startApp(session);
    else showLogin();
  } catch (err) {
    showLogin(err.message);
  }
}

boot();
