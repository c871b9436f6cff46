// Turns overlays, the attribution and the logo into what the renderer already draws: one GeoJSON
// source and a few layers appended on top of the style. The layers read only the normalized properties
// overlays.ts wrote, so a caller's GeoJSON cannot inject expressions.
import type { LayerSpecification, StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { Feature, FeatureCollection, Point } from "geojson";
import type { OverlayFeature } from "./overlays";

export const OVERLAY_SOURCE = "mapstead-overlay";
const LABEL_SOURCE = "mapstead-labels";
/** Built-in fonts (src/domain/fonts/builtin.ts), so labels draw on any installation. */
const BOLD = ["Noto Sans Bold"];
const REGULAR = ["Noto Sans Regular"];
const EDGE = 4;
const ATTRIBUTION_SIZE = 10;
const LOGO_SIZE = 12;

const isShape = ["==", ["get", "kind"], "shape"] as const;
const isMarker = ["==", ["get", "kind"], "marker"] as const;

const rgba = ["to-rgba", ["to-color", ["get", "color"]]];
/** A marker's label in white, or dark on light markers (white, yellow) where white would not show. */
const LABEL_ON_MARKER = [
  "case",
  [">", ["+", ["*", 0.299, ["at", 0, rgba]], ["*", 0.587, ["at", 1, rgba]], ["*", 0.114, ["at", 2, rgba]]], 160],
  "#222222",
  "#ffffff",
];

const OVERLAY_LAYERS = [
  {
    id: "mapstead-overlay-fill",
    type: "fill",
    source: OVERLAY_SOURCE,
    filter: ["all", isShape, ["==", ["geometry-type"], "Polygon"]],
    paint: { "fill-color": ["get", "fill"], "fill-opacity": ["get", "fillOpacity"] },
  },
  {
    id: "mapstead-overlay-line",
    type: "line",
    source: OVERLAY_SOURCE,
    filter: isShape,
    layout: { "line-join": "round", "line-cap": "round" },
    paint: { "line-color": ["get", "stroke"], "line-width": ["get", "strokeWidth"], "line-opacity": ["get", "strokeOpacity"] },
  },
  {
    id: "mapstead-overlay-marker",
    type: "circle",
    source: OVERLAY_SOURCE,
    filter: isMarker,
    paint: { "circle-color": ["get", "color"], "circle-radius": ["get", "radius"], "circle-stroke-color": "#ffffff", "circle-stroke-width": 2 },
  },
  {
    id: "mapstead-overlay-marker-icon",
    type: "symbol",
    source: OVERLAY_SOURCE,
    filter: ["all", isMarker, ["!=", ["get", "icon"], ""]],
    layout: { "icon-image": ["get", "icon"], "icon-allow-overlap": true, "icon-ignore-placement": true },
  },
  {
    id: "mapstead-overlay-marker-label",
    type: "symbol",
    source: OVERLAY_SOURCE,
    filter: ["all", isMarker, ["!=", ["get", "label"], ""]],
    layout: { "text-field": ["get", "label"], "text-font": BOLD, "text-size": ["*", ["get", "radius"], 1.4], "text-allow-overlap": true, "text-ignore-placement": true },
    paint: { "text-color": LABEL_ON_MARKER },
  },
] as unknown as LayerSpecification[];

/** Attribution text of the sources, without HTML tags or duplicates. */
export function attributionText(attributions: (string | undefined)[]): string {
  const parts = new Set<string>();
  for (const a of attributions) {
    if (!a) continue;
    const text = a
      .replace(/<[^>]*>/g, " ")
      .replace(/&copy;/g, "©")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim();
    if (text) parts.add(text);
  }
  return [...parts].join(" ").slice(0, 300);
}

interface Decorations {
  attribution: string;
  logo: boolean;
  /** the style layer the overlays go beneath (null or absent: on top) */
  beforeLayer?: string | null;
}

/** The style with overlays (on top, or beneath `beforeLayer`), attribution (bottom-right) and logo (bottom-left) drawn on top. */
export function decorateStyle(
  style: StyleSpecification,
  overlays: OverlayFeature[],
  view: { center: [number, number]; zoom: number; bearing: number; width: number; height: number },
  decorations: Decorations,
): StyleSpecification {
  const sources = { ...style.sources };
  const layers = [...style.layers];
  if (overlays.length) {
    sources[OVERLAY_SOURCE] = { type: "geojson", data: { type: "FeatureCollection", features: overlays } as FeatureCollection };
    const before = decorations.beforeLayer ? layers.findIndex((l) => l.id === decorations.beforeLayer) : -1;
    layers.splice(before < 0 ? layers.length : before, 0, ...OVERLAY_LAYERS);
  }
  // Both sit on the view's centre and are moved to their corner by text-offset (in ems, on screen): a
  // corner itself may lie beyond the world's edge (an image wider or taller than the world at its zoom),
  // where no longitude and latitude lands on it.
  const present = [
    ["attribution", REGULAR, ATTRIBUTION_SIZE, "bottom-right", decorations.attribution, view.width / 2 - EDGE],
    ["logo", BOLD, LOGO_SIZE, "bottom-left", decorations.logo ? "Mapstead" : "", -(view.width / 2 - EDGE)],
  ] as const;
  const labels: Feature<Point>[] = present
    .filter(([, , , , text]) => text)
    .map(([role, , , , text]) => ({ type: "Feature", geometry: { type: "Point", coordinates: view.center }, properties: { role, text } }));
  if (labels.length) {
    sources[LABEL_SOURCE] = { type: "geojson", data: { type: "FeatureCollection", features: labels } };
    for (const [role, font, size, anchor, , dx] of present)
      layers.push({
        id: `mapstead-${role}`,
        type: "symbol",
        source: LABEL_SOURCE,
        filter: ["==", ["get", "role"], role],
        layout: {
          "text-field": ["get", "text"],
          "text-font": [...font],
          "text-size": size,
          "text-anchor": anchor,
          "text-offset": [dx / size, (view.height / 2 - EDGE) / size],
          "text-max-width": 1000,
          "text-allow-overlap": true,
          "text-ignore-placement": true,
        },
        paint: { "text-color": "#333333", "text-halo-color": "rgba(255,255,255,0.85)", "text-halo-width": 1.5 },
      } as unknown as LayerSpecification);
  }
  return { ...style, sources, layers };
}
