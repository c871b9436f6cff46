// Elevation (instance admins): which backend answers the elevation API, the DEM tileset it samples with
// its coverage and zooms, the choice of that tileset (ELEVATION_TILESET in the environment wins), and a
// point lookup through the real elevation API to check the answer.
import { api } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { fmtBytes, fmtDate } from "../lib/format.js";
import { current, enc } from "../lib/state.js";
import { badge, errorBox, pageHead, showError, toast } from "../lib/widgets.js";

const PATH = "/api/v1/elevation/settings";

function backendText(s) {
  if (s.backend === "opentopodata") return "OpenTopoData (ELEVATION_INTERNAL_URL) answers. The DEM tileset below is used only with ELEVATION=embedded.";
  if (s.backend === "embedded") return `The embedded DEM tileset ${s.tileset} answers (chosen ${s.source === "env" ? "by ELEVATION_TILESET" : "here"}).`;
  if (s.mode === "off") return "ELEVATION=off: the elevation API answers 503 ELEVATION_NOT_CONFIGURED whatever is chosen here.";
  return "Nothing answers yet: the elevation API answers 503 ELEVATION_NOT_CONFIGURED until a DEM tileset is chosen.";
}

const row = (label, value) => h("tr", h("th", label), h("td", value));

function demCard(s) {
  if (s.problem) return h("div.card", { id: "elevation-dem" }, h("h2", "DEM tileset"), h("div.alert.alert-error", h("strong", s.problem.message), h("div", "Fix: ", s.problem.fix)));
  if (!s.dem) return h("div.card", { id: "elevation-dem" }, h("h2", "DEM tileset"), h("p.muted", "No DEM tileset is chosen."));
  const d = s.dem;
  return h(
    "div.card",
    { id: "elevation-dem" },
    h("h2", "DEM tileset"),
    h(
      "table",
      h(
        "tbody",
        row("Tileset", h("a", { href: `#/${enc(d.tileset.split("/")[0])}/tilesets/${enc(d.tileset.split("/")[1])}` }, `${d.tileset} v${d.version}`)),
        row("Encoding", `${d.encoding} (${d.format} tiles)`),
        row("Zooms", `${d.minzoom}–${d.maxzoom} (heights sampled at zoom ${d.maxzoom})`),
        row("Coverage", h("code", { "data-coverage": "" }, d.bounds.map((b) => Math.round(b * 1e4) / 1e4).join(", "))),
        row("Size", fmtBytes(d.bytes)),
        row("Built", fmtDate(d.built_at)),
      ),
    ),
  );
}

function chooseCard(s, onSaved) {
  const err = h("div", { hidden: true });
  const pinned = s.source === "env";
  const select = h("select", { id: "elevation-tileset", name: "tileset", disabled: pinned }, h("option", { value: "" }, "None"));
  for (const c of s.choices) select.append(h("option", { value: c.tileset }, `${c.tileset} · ${c.encoding}, zoom ${c.minzoom}–${c.maxzoom}`));
  // A console choice that is no longer a published DEM still shows, so saving does not drop it unseen.
  if (s.console_tileset && !s.choices.some((c) => c.tileset === s.console_tileset)) select.append(h("option", { value: s.console_tileset }, `${s.console_tileset} (not a published DEM)`));
  select.value = s.console_tileset ?? "";
  return h(
    "form.card",
    {
      id: "elevation-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const saved = await api("PUT", PATH, { tileset: select.value || null });
          toast(saved.console_tileset ? `Elevation now samples ${saved.console_tileset}` : "No DEM tileset chosen");
          onSaved();
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Choose the DEM"),
    pinned
      ? h("div.alert.alert-info", { id: "elevation-env-note" }, `ELEVATION_TILESET=${s.tileset} is set in the server's environment and wins over this setting; remove it there and restart to choose the DEM here.`)
      : h("p.muted.small", "Raster-DEM tilesets of every organization with a published version. Every worker answers from the new DEM within a second."),
    err,
    h("div.form-row", h("label", "DEM tileset", select)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit", disabled: pinned }, "Save")),
  );
}

function queryCard() {
  const lon = h("input", { type: "number", id: "elevation-lon", step: "any", min: -180, max: 180, required: true, placeholder: "7.6586" });
  const lat = h("input", { type: "number", id: "elevation-lat", step: "any", min: -90, max: 90, required: true, placeholder: "45.9763" });
  const result = h("div", { id: "elevation-result", "aria-live": "polite" });
  return h(
    "form.card",
    {
      id: "elevation-query",
      onsubmit: async (e) => {
        e.preventDefault();
        fill(result, h("p.muted", "Looking up…"));
        try {
          const answer = await api("GET", `/elevation/v1/${Number(lon.value)},${Number(lat.value)}`);
          const point = answer.elevations[0];
          fill(result, h("p", h("strong", { "data-height": String(point.elevation) }, `${point.elevation} m`), ` at ${point.location.lon}, ${point.location.lat}`), h("p.muted.small", answer.attribution));
        } catch (ex) {
          fill(result, errorBox(ex));
        }
      },
    },
    h("h2", "Look up a height"),
    h("p.muted.small", "Asks the elevation API (GET /elevation/v1/{lon},{lat}) as a client would."),
    h("div.form-row", h("label", "Longitude", lon), h("label", "Latitude", lat)),
    h("div.actions", h("button.btn", { type: "submit" }, "Look up")),
    result,
  );
}

export async function renderElevation(main, _item, view) {
  const s = await api("GET", PATH);
  if (!current(view)) return;
  const rerender = () => renderElevation(main, _item, view);
  fill(main,
    pageHead("Elevation", "What answers the elevation API and the DEM tileset it samples, for the whole appliance."),
    h(
      "div.card",
      { id: "elevation-backend" },
      h("h2", "Backend"),
      h("p", badge(s.backend, s.backend === "none" ? "warn" : "ok"), " ", h("span.muted.small", `ELEVATION=${s.mode}`)),
      h("p", backendText(s)),
    ),
    h("div.grid2", demCard(s), chooseCard(s, rerender)),
    queryCard(),
  );
}
