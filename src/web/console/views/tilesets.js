// The tileset list: create a tileset, see each one's latest version (refreshed while it processes).
// One tileset's page is views/tileset.js.
import { api } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate } from "../lib/format.js";
import { go } from "../lib/router.js";
import { current, enc, orgPath, state } from "../lib/state.js";
import { poll, pollNote } from "../lib/poll.js";
import { TERMINAL, versionStateCell } from "../lib/version-state.js";
import { badge, pageHead, showError, toast } from "../lib/widgets.js";
import { renderTileset } from "./tileset.js";

async function latestVersion(slug) {
  const { versions } = await api("GET", orgPath(`/tilesets/${enc(slug)}/versions`));
  return versions[0] || null;
}

export async function renderTilesets(main, item, view) {
  if (item) return renderTileset(main, item, view);
  const { tilesets } = await api("GET", orgPath("/tilesets"));
  const latest = await Promise.all(tilesets.map((t) => latestVersion(t.slug).catch(() => null)));
  if (!current(view)) return;
  const err = h("div", { hidden: true });
  const slug = h("input", { type: "text", id: "tileset-slug", name: "slug", required: true, placeholder: "parks" });
  const name = h("input", { type: "text", id: "tileset-name", name: "name", placeholder: "City parks" });
  const visibility = h("select", { id: "tileset-visibility" }, h("option", { value: "public" }, "Public"), h("option", { value: "private" }, "Private (members and maps:read keys)"));
  const attribution = h("input", { type: "text", id: "tileset-attribution", placeholder: "© Data provider" });
  const form = h(
    "form.card",
    {
      id: "new-tileset-form",
      hidden: tilesets.length > 0,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const body = { slug: slug.value.trim(), visibility: visibility.value };
          if (name.value.trim()) body.name = name.value.trim();
          if (attribution.value.trim()) body.attribution = attribution.value.trim();
          const t = await api("POST", orgPath("/tilesets"), body);
          toast(`Tileset ${t.slug} created; upload data next`);
          go("tilesets", t.slug);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "New tileset"),
    err,
    h("div.form-row", h("label", "Slug", slug), h("label", "Name", name), h("label", "Visibility", visibility)),
    h("div.form-row", h("label", "Attribution", attribution, h("span.hint", "Shown by map clients; HTML links allowed."))),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Create tileset")),
  );
  const stateCells = new Map();
  const rows = tilesets.map((t, i) => {
    const v = latest[i];
    const cell = h("td", v ? versionStateCell(v, true) : h("span.muted", "no data yet"));
    stateCells.set(t.slug, cell);
    return h(
      "tr.clickable",
      { "data-tileset": t.slug, onclick: () => go("tilesets", t.slug) },
      h("td", h("a", { href: `#/${enc(state.org)}/tilesets/${enc(t.slug)}` }, h("strong", t.name || t.slug)), h("div.muted.small", t.slug)),
      h("td", t.visibility === "private" ? badge("private") : badge("public", "neutral")),
      h("td", t.published_version !== null ? badge(`v${t.published_version} published`, "published") : badge("unpublished", "neutral")),
      cell,
      h("td.muted.small", fmtDate(t.updated_at)),
    );
  });
  fill(main,
    pageHead("Tilesets", "Vector or raster data, processed into tiles and served as TileJSON.", h("button.btn.btn-primary", { type: "button", id: "new-tileset-button", onclick: () => ((form.hidden = false), slug.focus()) }, "New tileset")),
    form,
    h(
      "div.card",
      { id: "tilesets-table" },
      h(
        "table",
        h("thead", h("tr", h("th", "Tileset"), h("th", "Visibility"), h("th", "Published"), h("th", "Latest version"), h("th", "Updated"))),
        h("tbody", rows.length ? rows : h("tr", h("td.empty", { colSpan: 5 }, "No tilesets yet. Create one, then upload GeoJSON, CSV, Shapefile (zip), FlatGeobuf, GeoPackage, MBTiles or PMTiles."))),
      ),
    ),
  );
  // Versions still processing: refresh their state cells (not the page, so a half-filled form stays),
  // through outages of the server (a note says so; tries continue with backoff).
  let busy = tilesets.filter((_, i) => latest[i] && !TERMINAL.has(latest[i].state)).map((t) => t.slug);
  if (!busy.length) return;
  const note = pollNote("tilesets-poll-note");
  main.querySelector("#tilesets-table").prepend(note);
  poll(view, 2000, async () => {
    // A tileset deleted meanwhile (404) is no longer followed; other failures are retried.
    const fresh = await Promise.all(busy.map((slug) => latestVersion(slug).catch((ex) => (ex.status === 404 ? null : Promise.reject(ex)))));
    if (!current(view)) return false;
    busy.forEach((slug, i) => fresh[i] && fill(stateCells.get(slug), versionStateCell(fresh[i], true)));
    busy = busy.filter((_, i) => fresh[i] && !TERMINAL.has(fresh[i].state));
    return busy.length > 0;
  }, note);
}
