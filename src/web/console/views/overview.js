// Overview of an organization: counts, the publishing checklist and a snippet for a published style.
import { api } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { current, enc, orgInfo, orgPath, state } from "../lib/state.js";
import { pageHead, privateUrlsNote, urlRow } from "../lib/widgets.js";

export async function renderOverview(main, _item, view) {
  const [ts, st, keys] = await Promise.all([
    api("GET", orgPath("/tilesets")),
    api("GET", orgPath("/styles")),
    api("GET", orgPath("/keys")).catch(() => ({ keys: [] })),
  ]);
  if (!current(view)) return;
  const publishedTs = ts.tilesets.filter((t) => t.published_version !== null);
  const publishedSt = st.styles.filter((s) => s.published_version !== null);
  const org = orgInfo();
  const stat = (num, lbl, section) => h("a.stat", { href: `#/${enc(state.org)}/${section}` }, h("div.num", String(num)), h("div.lbl", lbl));
  const step = (done, text, section) => h("li", { class: done ? "done" : "" }, section ? h("a", { href: `#/${enc(state.org)}/${section}` }, text) : text);
  const firstStyle = publishedSt[0];
  fill(main,
    pageHead(org.name || org.slug, `Organization ${org.slug} · your role: ${org.role}`),
    h(
      "div.stats",
      stat(ts.tilesets.length, "Tilesets", "tilesets"),
      stat(publishedTs.length, "Published tilesets", "tilesets"),
      stat(`${publishedSt.length} / ${st.styles.length}`, "Published styles", "styles"),
      stat(keys.keys.filter((k) => k.status === "active").length, "Active API keys", "keys"),
    ),
    h(
      "div.grid2",
      h(
        "div.card",
        h("h2", "Publish a map"),
        h(
          "ol.steps",
          step(ts.tilesets.length > 0, "Create a tileset", "tilesets"),
          step(publishedTs.length > 0, "Upload data and wait for a ready version", "tilesets"),
          step(publishedTs.length > 0, "Publish the tileset and verify its TileJSON URL", "tilesets"),
          step(st.styles.length > 0, "Create a style that uses the tileset", "styles"),
          step(publishedSt.length > 0, "Publish the style", "styles"),
          step(keys.keys.length > 0, "Use its URL in a client (add an API key for private maps and services)", "keys"),
        ),
      ),
      h(
        "div.card",
        h("h2", "Use a published style"),
        firstStyle
          ? [
              h("p.muted.small", `MapLibre GL JS, with the stable URL of ${firstStyle.name || firstStyle.slug}:`),
              h("pre.alert.alert-info", `new maplibregl.Map({\n  container: "map",\n  style: "${firstStyle.urls.stable}",\n});`),
              urlRow("Stable", firstStyle.urls.stable),
              urlRow("Versioned", firstStyle.urls.published),
              privateUrlsNote(firstStyle.visibility),
            ]
          : h("p.muted", "No style is published yet. Once one is, its stable and versioned URLs appear here."),
      ),
    ),
  );
}
