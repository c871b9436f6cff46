// The "Static image" and "Raster tiles" cards of a style page: pick a view (typed, or taken from the live
// preview map), size, @2x, format and overlays, see the image drawn by the server (with this console
// session: no key needed), and copy its URL for an API key with static_maps. Secrets are never shown: the
// URL carries a YOUR_KEY placeholder and names the chosen key by its prefix. Beside it, the raster tile
// URL template and raster TileJSON for Leaflet, OpenLayers and QGIS.
import { api } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { current, enc, orgPath, state, withBase } from "../lib/state.js";
import { copyButton, errorBox } from "../lib/widgets.js";

const PLACEHOLDER = "YOUR_KEY";

/** The static image path (after the server's base URL) for the form's values; overlays go in the path segment. */
function imagePath(org, styleRef, v) {
  const position = [v.lon, v.lat, v.zoom].map(String);
  if (v.bearing) position.push(String(v.bearing));
  const overlay = v.overlay.trim() ? `/${enc(v.overlay.trim())}` : "";
  return `/static/v1/${enc(org)}/${enc(styleRef)}${overlay}/${v.auto ? "auto" : position.join(",")}/${v.width}x${v.height}${v.retina ? "@2x" : ""}.${v.format}`;
}

const round = (n, digits) => Number(n.toFixed(digits));

/** A row with a URL (or template) and a Copy button. */
const copyRow = (label, id, text) => h("div.url-row", h("span.lbl", label), h("code", { id }, text), h("div.actions", copyButton(text, `${label} copied`)));

export function rasterTilesCard(style) {
  const stable = style.urls.stable;
  return h(
    "div.card",
    { id: "raster-tiles" },
    h("h2", "Raster tiles"),
    stable
      ? [
          copyRow("Tile URL", "raster-template", `${stable}/tiles/256/{z}/{x}/{y}.png`),
          copyRow("TileJSON", "raster-tilejson", `${stable}/tiles.json`),
          copyRow("WMTS", "raster-wmts", `${stable}/wmts.xml`),
          h(
            "p.muted.small",
            "PNG tiles drawn on the server, for Leaflet (L.tileLayer with tileSize 256; add {r} before .png for @2x), OpenLayers (ol.source.XYZ, ol.source.TileJSON or ol.source.WMTS) and QGIS (XYZ Tiles with max zoom 22, or WMS/WMTS with the WMTS URL). ",
            style.visibility === "private" ? `This style is private: append ?access_token=${PLACEHOLDER} with a key that has maps:read (or send it as X-API-Key).` : "Public like the style: no key needed.",
          ),
        ]
      : h("p.muted", "Publish the style to get raster tiles."),
  );
}

/**
 * The view a style opens at (its root `center`, `zoom` and `bearing`, as a map client starts it), so the
 * first image shows what the style is about rather than the whole world at 0,0; each part that is
 * missing or out of range falls back on its own.
 */
function styleView(json) {
  const inRange = (v, min, max) => typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;
  const center = Array.isArray(json?.center) ? json.center : [];
  return {
    lon: inRange(center[0], -180, 180) ? round(center[0], 5) : 0,
    lat: inRange(center[1], -85.0511, 85.0511) ? round(center[1], 5) : 0,
    zoom: inRange(json?.zoom, 0, 22) ? round(json.zoom, 2) : 1,
    bearing: inRange(json?.bearing, -360, 360) ? round((json.bearing + 360) % 360, 1) : 0,
  };
}

export function staticImageCard(style, view) {
  const card = h("div.card", { id: "static-image" }, h("h2", "Static image"));
  if (style.published_version === null) {
    card.append(h("p.muted", "Publish the style to get static images."));
    return card;
  }
  const base = style.urls.stable.slice(0, -`/styles/v1/${state.org}/${style.slug}`.length);
  const num = (id, value, attrs) => h("input", { type: "number", id, value: String(value), step: "any", ...attrs });
  const start = styleView(style.draft);
  const lon = num("static-lon", start.lon, { min: -180, max: 180 });
  const lat = num("static-lat", start.lat, { min: -85.0511, max: 85.0511 });
  const zoom = num("static-zoom", start.zoom, { min: 0, max: 22 });
  const bearing = num("static-bearing", start.bearing, { min: 0, max: 360 });
  const width = num("static-width", 600, { min: 1, max: 1280, step: "1" });
  const height = num("static-height", 400, { min: 1, max: 1280, step: "1" });
  const retina = h("input", { type: "checkbox", id: "static-retina" });
  const auto = h("input", { type: "checkbox", id: "static-auto" });
  const format = h("select", { id: "static-format" }, ["png", "jpg", "webp"].map((f) => h("option", { value: f }, f)));
  const pinned = h("input", { type: "checkbox", id: "static-pinned" });
  const overlay = h("input", { type: "text", id: "static-overlay", placeholder: "pin-l-a+f00(8.54,47.37),path-4+f0f-0.8(_p~iF~ps|U_ulLnnqC)" });
  const keySelect = h("select", { id: "static-key" }, h("option", { value: "" }, "any key with static_maps"));
  const keyNote = h("p.muted.small", { id: "static-key-note" });
  const urlSlot = h("div");
  const status = h("div", { id: "static-status", class: "muted small" });
  const image = h("img", { id: "static-image-preview", alt: "Static image rendered by the server" });
  let objectUrl = null;
  let keys = [];

  const values = () => ({
    lon: lon.value.trim(),
    lat: lat.value.trim(),
    zoom: zoom.value.trim(),
    bearing: Number(bearing.value) ? bearing.value.trim() : "",
    width: width.value.trim(),
    height: height.value.trim(),
    retina: retina.checked,
    auto: auto.checked,
    format: format.value,
    overlay: overlay.value,
  });
  const styleRef = () => (pinned.checked ? `${style.slug}@${style.published_version}` : style.slug);

  function showUrl() {
    const url = `${base}${imagePath(state.org, styleRef(), values())}`;
    const withKey = `${url}${url.includes("?") ? "&" : "?"}access_token=${PLACEHOLDER}`;
    const key = keys.find((k) => String(k.id) === keySelect.value);
    fill(urlSlot, copyRow("Image URL", "static-url", withKey));
    keyNote.textContent = key
      ? `Replace ${PLACEHOLDER} with the secret of key “${key.name}” (${key.prefix}…). Mapstead keeps only a hash of it and showed the secret once, when the key was created.`
      : keys.length
        ? `Replace ${PLACEHOLDER} with the secret of a key that has the static_maps scope, or send it in the X-API-Key header instead.`
        : `Replace ${PLACEHOLDER} with the secret of a key that has the static_maps scope (create one under API keys), or send it in the X-API-Key header instead.`;
  }

  /** Draws the image with this console session; the server's message is shown when it refuses. */
  async function renderImage() {
    showUrl();
    status.textContent = "Rendering…";
    status.className = "muted small";
    image.dataset.loaded = "false";
    try {
      const res = await fetch(withBase(imagePath(state.org, styleRef(), values())), { headers: { accept: "image/*" } });
      if (!current(view)) return;
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        fill(status, errorBox(new Error(body.error?.message ?? `The server answered HTTP ${res.status}`)));
        status.className = "";
        image.hidden = true;
        return;
      }
      if (objectUrl) URL.revokeObjectURL(objectUrl);
      objectUrl = URL.createObjectURL(await res.blob());
      image.onload = () => {
        image.dataset.loaded = "true";
        status.textContent = `${image.naturalWidth}×${image.naturalHeight} ${values().format.toUpperCase()}, rendered with your console session (not billed to a key).`;
      };
      image.hidden = false;
      image.src = objectUrl;
    } catch (err) {
      fill(status, errorBox(err));
      status.className = "";
    }
  }

  /** Takes the centre, zoom and bearing of the live preview map (the same zoom scale as MapLibre). */
  function useMapView() {
    const map = state.map;
    if (!map) {
      status.textContent = "The preview map is not shown; type the view instead.";
      return;
    }
    const c = map.getCenter();
    lon.value = String(round(c.lng, 5));
    lat.value = String(round(c.lat, 5));
    zoom.value = String(round(map.getZoom(), 2));
    bearing.value = String(round((map.getBearing() + 360) % 360, 1));
    auto.checked = false;
    renderImage();
  }

  for (const el of [lon, lat, zoom, bearing, width, height, retina, auto, format, pinned, overlay, keySelect]) el.addEventListener("change", showUrl);
  image.hidden = true;
  card.append(
    h("p.muted.small", "A picture of the published style for e-mails, reports and link previews (Mapbox Static Images API form). Preview it here, then copy the URL for an API key with the static_maps scope."),
    h(
      "div.form-row",
      h("label", "Longitude", lon),
      h("label", "Latitude", lat),
      h("label", "Zoom", zoom),
      h("label", "Bearing", bearing),
    ),
    h(
      "div.form-row",
      h("label", "Width (px)", width),
      h("label", "Height (px)", height),
      h("label", "Format", format),
      h("label", "API key for the URL", keySelect),
    ),
    h("label", "Overlays", overlay, h("span.hint", "Comma-separated: pin-s|pin-l[-label][+color](lon,lat), path-{width}+{color}-{opacity}[+{fill}-{fill opacity}](encoded polyline), geojson({...})")),
    h(
      "div.checks",
      h("label.inline", retina, "@2x (twice the pixels)"),
      h("label.inline", auto, "auto: fit the view to the overlays"),
      h("label.inline", pinned, `pin to v${style.published_version}`),
    ),
    h(
      "div.actions",
      h("button.btn", { type: "button", id: "static-use-map", onclick: useMapView }, "Use the preview's view"),
      h("button.btn.btn-primary", { type: "button", id: "static-render", onclick: renderImage }, "Render"),
    ),
    urlSlot,
    keyNote,
    status,
    h("div.static-preview", image),
  );
  showUrl();
  // Keys are listed by prefix only, for owners and admins; others get the placeholder note.
  api("GET", orgPath("/keys"))
    .then((r) => {
      if (!current(view)) return;
      keys = r.keys.filter((k) => k.status === "active" && k.scopes.includes("static_maps"));
      fill(keySelect, h("option", { value: "" }, "any key with static_maps"), keys.map((k) => h("option", { value: String(k.id) }, `${k.name} (${k.prefix}…)`)));
      if (keys.length) keySelect.value = String(keys[0].id);
      showUrl();
    })
    .catch(() => {});
  return card;
}
