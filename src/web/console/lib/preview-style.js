// Styles generated for data nobody has styled yet: the tileset preview and the starter style template
// draw every vector layer by geometry type, in a fixed palette.

const PALETTE = ["#2f6fdf", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c", "#0b7285", "#e67700"];

/** Layers that draw every vector layer: fill, outline, line and circle, each for its geometry type. */
export function layersFor(sourceId, vectorLayers, opts = {}) {
  const layers = [];
  vectorLayers.forEach((vl, i) => {
    const color = PALETTE[i % PALETTE.length];
    const kinds = geometryKinds(vl);
    const base = { source: sourceId, "source-layer": vl.id };
    if (kinds.has("polygon")) {
      layers.push({ id: `${vl.id}-fill`, type: "fill", ...base, filter: ["==", "$type", "Polygon"], paint: { "fill-color": color, "fill-opacity": opts.fillOpacity ?? 0.45 } });
      layers.push({ id: `${vl.id}-outline`, type: "line", ...base, filter: ["==", "$type", "Polygon"], paint: { "line-color": color, "line-width": 1 } });
    }
    if (kinds.has("line")) layers.push({ id: `${vl.id}-line`, type: "line", ...base, filter: ["==", "$type", "LineString"], paint: { "line-color": color, "line-width": 2 } });
    if (kinds.has("point"))
      layers.push({
        id: `${vl.id}-circle`,
        type: "circle",
        ...base,
        filter: ["==", "$type", "Point"],
        paint: { "circle-color": color, "circle-radius": 5, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 },
      });
  });
  return layers;
}

/** Geometry types of a vector layer when the tileset says so (tilestats-style fields), else all three. */
function geometryKinds(vl) {
  const raw = [vl.geometry_type, vl.geometry, vl.geometryType, ...(Array.isArray(vl.geometry_types) ? vl.geometry_types : [])].filter((x) => typeof x === "string");
  const kinds = new Set();
  for (const g of raw) {
    const s = g.toLowerCase();
    if (s.includes("polygon")) kinds.add("polygon");
    else if (s.includes("line")) kinds.add("line");
    else if (s.includes("point")) kinds.add("point");
  }
  return kinds.size ? kinds : new Set(["polygon", "line", "point"]);
}

/** A minimal style for one tileset version: raster tiles as they are, vector layers drawn by type. */
export function tilesetPreviewStyle(v) {
  const background = { id: "background", type: "background", paint: { "background-color": "#eef2f5" } };
  if (v.format && v.format !== "pbf")
    return { version: 8, sources: { data: { type: "raster", url: v.tilejson_url, tileSize: 256 } }, layers: [background, { id: "raster", type: "raster", source: "data" }] };
  return { version: 8, sources: { data: { type: "vector", url: v.tilejson_url } }, layers: [background, ...layersFor("data", v.layers || [])] };
}
