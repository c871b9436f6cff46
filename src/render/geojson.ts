// Inline GeoJSON sources (overlays arrive this way) as RenderFeatures: projected straight from lon/lat
// to screen pixels, then clipped to the view with a margin.
import { renderFeature, type RenderFeature } from "./features";
import { signedArea, type Ring } from "./geometry";
import { CLIP_MARGIN_PX } from "./tiles";
import { lngLatToScreen, type Camera } from "./view";

type Position = number[];

const IDENTITY = { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 };

export function geojsonFeatures(cam: Camera, data: GeoJSON.GeoJSON | null): RenderFeature[] {
  if (!data) return [];
  const { width, height } = cam.view;
  const clip = { minX: -CLIP_MARGIN_PX, minY: -CLIP_MARGIN_PX, maxX: width + CLIP_MARGIN_PX, maxY: height + CLIP_MARGIN_PX };
  const space = { toScreen: IDENTITY, clip, ownsPoint: () => true, tolerance: 0.5 / cam.view.pixelRatio };
  const project = (ring: Position[]): Ring => {
    const out: Ring = [];
    for (const p of ring) {
      if (typeof p?.[0] !== "number" || typeof p[1] !== "number") continue;
      out.push(...lngLatToScreen(cam, p[0], p[1]));
    }
    return out;
  };
  const out: RenderFeature[] = [];
  const add = (geometry: GeoJSON.Geometry | null, id: number | string | undefined, properties: Record<string, unknown>) => {
    if (!geometry) return;
    switch (geometry.type) {
      case "Point":
        out.push(renderFeature(1, id, properties, () => [project([geometry.coordinates])], space));
        break;
      case "MultiPoint":
        out.push(renderFeature(1, id, properties, () => [project(geometry.coordinates)], space));
        break;
      case "LineString":
        out.push(renderFeature(2, id, properties, () => [project(geometry.coordinates)], space));
        break;
      case "MultiLineString":
        out.push(renderFeature(2, id, properties, () => geometry.coordinates.map(project), space));
        break;
      case "Polygon":
        out.push(renderFeature(3, id, properties, () => orient([geometry.coordinates.map(project)]), space));
        break;
      case "MultiPolygon":
        out.push(renderFeature(3, id, properties, () => orient(geometry.coordinates.map((p) => p.map(project))), space));
        break;
      case "GeometryCollection":
        for (const g of geometry.geometries) add(g, id, properties);
        break;
    }
  };
  const walk = (g: GeoJSON.GeoJSON) => {
    if (g.type === "FeatureCollection") for (const f of g.features) walk(f);
    else if (g.type === "Feature") add(g.geometry, g.id, (g.properties ?? {}) as Record<string, unknown>);
    else add(g, undefined, {});
  };
  walk(data);
  return out;
}

/** GeoJSON winding is not reliable; wind exteriors clockwise and holes anticlockwise on screen so the
 * tile-style ring classification applies. */
function orient(polygons: Ring[][]): Ring[] {
  const rings: Ring[] = [];
  for (const polygon of polygons) {
    polygon.forEach((ring, i) => {
      if (ring.length < 6) return;
      if (signedArea(ring) > 0 !== (i === 0)) {
        const flipped: Ring = [];
        for (let k = ring.length - 2; k >= 0; k -= 2) flipped.push(ring[k]!, ring[k + 1]!);
        rings.push(flipped);
      } else rings.push(ring);
    });
  }
  return rings;
}
