// The one live map of the console (tileset and style previews). MapLibre GL JS is loaded on first use
// from this origin (embedded in the binary), so previews work air-gapped.
import { fill, h } from "./dom.js";
import { current, state } from "./state.js";

let maplibre = null;
async function loadMaplibre() {
  maplibre ||= await import("../maplibre-gl.mjs");
  return maplibre;
}

export function destroyMap() {
  if (state.map) {
    try {
      state.map.remove();
    } catch {}
    state.map = null;
  }
}

/** A map in `container` showing `style` (URL or object); status line reports loading and errors. */
export async function showMap(container, style, opts = {}) {
  destroyMap();
  const view = state.view;
  const status = h("div.map-status", "Loading map…");
  const mapEl = h("div.map", { id: "map-preview", "data-style": typeof style === "string" ? style : "inline" });
  fill(container, h("div.map-wrap", mapEl, status));
  let ml;
  try {
    ml = await loadMaplibre();
  } catch (err) {
    status.textContent = `The map library failed to load: ${err.message}`;
    status.classList.add("error");
    return;
  }
  if (!current(view)) return;
  const map = new ml.Map({
    container: mapEl,
    style,
    attributionControl: { compact: true },
    fadeDuration: 0,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  state.map = map;
  map.addControl(new ml.NavigationControl({ showCompass: false }), "top-right");
  let errors = 0;
  map.on("error", (e) => {
    errors++;
    status.textContent = `Map error: ${(e && e.error && e.error.message) || "a request failed"}`;
    status.classList.add("error");
  });
  map.once("load", () => {
    // A style without its own centre opens on the extent of its first source that declares bounds.
    let bounds = opts.bounds;
    if (!bounds && !map.getStyle().center)
      for (const id of Object.keys(map.getStyle().sources || {})) {
        const b = map.getSource(id)?.bounds;
        if (Array.isArray(b) && b.length === 4) {
          bounds = b;
          break;
        }
      }
    if (bounds && bounds.length === 4) {
      const [w, s, e, n] = bounds;
      if (e - w < 359 || n - s < 170) map.fitBounds([[w, s], [e, n]], { padding: 30, animate: false, maxZoom: opts.maxzoom ?? 14 });
    }
  });
  map.on("idle", () => {
    if (!errors) status.textContent = "Map loaded";
    mapEl.dataset.idle = "true";
  });
}
