// The style list, and creating a style from the starter template for a published tileset. One style's
// page is views/style.js.
import { api, ApiError } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate } from "../lib/format.js";
import { layersFor } from "../lib/preview-style.js";
import { go } from "../lib/router.js";
import { current, enc, orgPath, state } from "../lib/state.js";
import { badge, pageHead, showError, toast } from "../lib/widgets.js";
import { renderStyle } from "./style.js";

export async function renderStyles(main, item, view) {
  if (item) return renderStyle(main, item, view);
  const [{ styles }, { tilesets }] = await Promise.all([api("GET", orgPath("/styles")), api("GET", orgPath("/tilesets"))]);
  if (!current(view)) return;
  const published = tilesets.filter((t) => t.published_version !== null);
  const err = h("div", { hidden: true });
  const slug = h("input", { type: "text", id: "style-slug", required: true, placeholder: "streets" });
  const name = h("input", { type: "text", id: "style-name", placeholder: "Streets" });
  const visibility = h("select", { id: "style-visibility" }, h("option", { value: "public" }, "Public"), h("option", { value: "private" }, "Private"));
  const tilesetSelect = h(
    "select",
    { id: "style-tileset" },
    published.length ? published.map((t) => h("option", { value: t.slug }, `${t.name || t.slug} (v${t.published_version})`)) : h("option", { value: "" }, "No published tileset"),
  );
  const form = h(
    "form.card",
    {
      id: "new-style-form",
      hidden: styles.length > 0,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const style = await starterStyle(tilesetSelect.value, name.value.trim() || slug.value.trim());
          const body = { slug: slug.value.trim(), visibility: visibility.value, style };
          if (name.value.trim()) body.name = name.value.trim();
          const created = await api("POST", orgPath("/styles"), body);
          toast(`Style ${created.slug} created from the template`);
          go("styles", created.slug);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "New style from a template"),
    h("p.muted.small", "The starter style has a background and a fill, line or circle layer for each vector layer of the tileset. Edit the JSON afterwards."),
    err,
    published.length ? null : h("div.alert.alert-warn", "Publish a tileset first: a style can only use published tilesets. ", h("a", { href: `#/${enc(state.org)}/tilesets` }, "Go to tilesets")),
    h("div.form-row", h("label", "Slug", slug), h("label", "Name", name), h("label", "Visibility", visibility), h("label", "Tileset", tilesetSelect)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit", disabled: !published.length }, "Create style")),
  );
  const rows = styles.map((s) =>
    h(
      "tr.clickable",
      { "data-style": s.slug, onclick: () => go("styles", s.slug) },
      h("td", h("a", { href: `#/${enc(state.org)}/styles/${enc(s.slug)}` }, h("strong", s.name || s.slug)), h("div.muted.small", s.slug)),
      h("td", s.visibility === "private" ? badge("private") : badge("public", "neutral")),
      h("td", s.published_version !== null ? badge(`v${s.published_version} published`, "published") : badge("draft only", "draft")),
      h("td.small", s.urls.stable ? h("code", s.urls.stable) : h("span.muted", "—")),
      h("td.muted.small", fmtDate(s.updated_at)),
    ),
  );
  fill(main,
    pageHead("Styles", "MapLibre style JSON: draft, publish, then use the stable or versioned URL.", h("button.btn.btn-primary", { type: "button", id: "new-style-button", onclick: () => ((form.hidden = false), slug.focus()) }, "New style")),
    form,
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Style"), h("th", "Visibility"), h("th", "Published"), h("th", "Stable URL"), h("th", "Updated"))),
        h("tbody", rows.length ? rows : h("tr", h("td.empty", { colSpan: 5 }, "No styles yet."))),
      ),
    ),
  );
}

/** Background plus layers guessed from the published version's vector layers. */
async function starterStyle(tilesetSlug, title) {
  if (!tilesetSlug) throw new ApiError(400, "BAD_REQUEST", "Choose a published tileset for the style");
  const t = await api("GET", orgPath(`/tilesets/${enc(tilesetSlug)}`));
  const v = await api("GET", orgPath(`/tilesets/${enc(tilesetSlug)}/versions/${t.published_version}`));
  const style = { version: 8, name: title, sources: {}, layers: [{ id: "background", type: "background", paint: { "background-color": "#f4f1ea" } }] };
  if (v.format && v.format !== "pbf") {
    style.sources[tilesetSlug] = { type: "raster", url: `mapstead://tilesets/${state.org}/${tilesetSlug}`, tileSize: 256 };
    style.layers.push({ id: tilesetSlug, type: "raster", source: tilesetSlug });
  } else {
    style.sources[tilesetSlug] = { type: "vector", url: `mapstead://tilesets/${state.org}/${tilesetSlug}` };
    style.layers.push(...layersFor(tilesetSlug, v.layers || [], { fillOpacity: 0.6 }));
  }
  if (v.center) {
    style.center = [v.center[0], v.center[1]];
    // One level out from the data's own centre zoom, so the whole extent fits a typical viewport.
    style.zoom = Math.max(0, (v.center[2] ?? 2) - 1);
  }
  return style;
}
