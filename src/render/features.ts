// Features of a source, ready to draw: expression-visible properties plus geometry in screen pixels,
// computed lazily per use (a fill wants clipped polygons, a line or outline wants clipped open lines,
// circles and symbols want points) and cached, because several style layers read the same features.
import { classifyRings, clipLine, clipPolygon, signedArea, toScreen, type Box, type Ring } from "./geometry";
import type { EvalFeature } from "./style-eval";
import { invert, type Affine } from "./view";

export interface RenderFeature extends EvalFeature {
  /** polygons (exterior clockwise on screen, holes anticlockwise), clipped to what can be seen */
  polygons(): Ring[][];
  /** lines, or polygon rings as open lines, clipped so tile edges never show */
  lines(): Ring[];
  /**
   * The same lines as their tile holds them (buffer included), not cut by the view, for line-center
   * labels: where their labels are anchored then depends on the map alone, so neighbouring raster tiles
   * (drawn as views of their own) place a label across their shared edge at the same spot.
   */
  labelLines(): Ring[];
  /** Whether a screen point lies in this feature's own tile (a label anchored there belongs to it). */
  ownsAnchor(x: number, y: number): boolean;
  /**
   * For labels along lines as MapLibre lays them out: the lines cut to each tile it lays symbols out in
   * (an overzoomed tile is split into those of the view's whole zoom, as MapLibre 6 slices it) that
   * comes within `reachPx` of the view, each with whether it starts at that tile's edge and which
   * anchors that tile owns. Without tiles (GeoJSON drawn whole): labelLines, owned by ownsAnchor.
   */
  layoutLines(reachPx: number): LayoutLine[];
  /** where each line starts, in screen px, once across tiles (not where a tile or the view cuts it) */
  lineStarts(): [number, number][];
  /** points in screen px (each point once across tiles) */
  points(): [number, number][];
  /**
   * Where MapLibre puts a circle or heatmap kernel of this feature, in screen px, each once across tiles:
   * its points, or every vertex of its lines and polygon rings (a ring's first vertex again at its end,
   * as a vector tile closes it).
   */
  vertices(): [number, number][];
}

export interface LayoutLine {
  /** screen px */
  line: Ring;
  /** whether the line runs on from outside its layout tile */
  continued: boolean;
  owns(x: number, y: number): boolean;
}

export interface GeometrySpace {
  /** raw coordinates -> screen px */
  toScreen: Affine;
  /** in raw coordinates: the part of the tile (or the screen, for geojson) worth drawing */
  clip: Box;
  /** in raw coordinates: where points belong to this tile (half-open), so buffers do not duplicate them */
  ownsPoint: (x: number, y: number) => boolean;
  /** simplification tolerance in screen px */
  tolerance: number;
  /** the tile's extent and into how many layout tiles a side splits (2^(layout zoom - tile zoom)) */
  layout?: { extent: number; split: number };
}

export function renderFeature(
  type: 1 | 2 | 3,
  id: number | string | undefined,
  properties: Record<string, unknown>,
  rawRings: () => Ring[],
  space: GeometrySpace,
): RenderFeature {
  let polygons: Ring[][] | undefined;
  let lines: Ring[] | undefined;
  let labelLines: Ring[] | undefined;
  let fromScreen: Affine | undefined;
  let points: [number, number][] | undefined;
  let vertices: [number, number][] | undefined;
  /**
   * A screen point back in tile units. The round trip leaves a point on a tile edge (a street along it)
   * a hair off, outside both tiles, so neither placed its label; snapped to 1/1024 unit, the edge belongs
   * to exactly one tile as its raw coordinates say.
   */
  const tilePoint = (x: number, y: number): [number, number] => {
    const inv = (fromScreen ??= invert(space.toScreen));
    return [snap(inv.a * x + inv.c * y + inv.e), snap(inv.b * x + inv.d * y + inv.f)];
  };
  return {
    type,
    id,
    properties,
    polygons() {
      if (polygons) return polygons;
      polygons = [];
      if (type !== 3) return polygons;
      for (const polygon of classifyRings(rawRings())) {
        const out: Ring[] = [];
        for (let i = 0; i < polygon.length; i++) {
          const clipped = clipPolygon(polygon[i]!, space.clip);
          if (!clipped.length) continue;
          const screen = toScreen(clipped, space.toScreen, space.tolerance, true);
          if (!screen.length) continue;
          // nonzero filling of batched features needs exteriors and holes wound opposite ways
          const wantPositive = i === 0;
          if (signedArea(screen) > 0 !== wantPositive) reverseRing(screen);
          if (i === 0 || out.length) out.push(screen);
        }
        if (out.length) polygons.push(out);
      }
      return polygons;
    },
    lines() {
      return (lines ??= openLines(type, rawRings(), space.clip, space));
    },
    labelLines() {
      return (labelLines ??= openLines(type, rawRings(), null, space));
    },
    ownsAnchor(x, y) {
      return space.ownsPoint(...tilePoint(x, y));
    },
    layoutLines(reachPx) {
      const layout = space.layout;
      if (!layout) return this.labelLines().map((line) => ({ line, continued: false, owns: (x: number, y: number) => this.ownsAnchor(x, y) }));
      const inv = (fromScreen ??= invert(space.toScreen));
      const reach = reachPx * Math.sqrt(Math.abs(inv.a * inv.d - inv.b * inv.c));
      const size = layout.extent / layout.split;
      const { clip } = space;
      const range = (lo: number, hi: number) => [Math.max(0, Math.floor((lo - reach) / size)), Math.min(layout.split - 1, Math.floor((hi + reach) / size))];
      const [i0, i1] = range(clip.minX, clip.maxX);
      const [j0, j1] = range(clip.minY, clip.maxY);
      const out: LayoutLine[] = [];
      const rings = type === 3 ? rawRings().map((r) => (r.length >= 4 ? [...r, r[0]!, r[1]!] : r)) : type === 2 ? rawRings() : [];
      for (let j = j0!; j <= j1!; j++) {
        for (let i = i0!; i <= i1!; i++) {
          const box = { minX: i * size, minY: j * size, maxX: (i + 1) * size, maxY: (j + 1) * size };
          const owns = (x: number, y: number) => {
            const [rx, ry] = tilePoint(x, y);
            return rx >= box.minX && rx < box.maxX && ry >= box.minY && ry < box.maxY;
          };
          for (const ring of rings) {
            for (const run of clipLine(ring, box)) {
              const line = toScreen(run, space.toScreen, space.tolerance, false);
              // (clipping leaves a cut a hair off the edge; MapLibre sets it on the edge)
              const onEdge = (v: number, edge: number) => Math.abs(v - edge) < 1e-6 * size;
              const continued = onEdge(run[0]!, box.minX) || onEdge(run[0]!, box.maxX) || onEdge(run[1]!, box.minY) || onEdge(run[1]!, box.maxY);
              if (line.length >= 4) out.push({ line, continued, owns });
            }
          }
        }
      }
      return out;
    },
    lineStarts() {
      if (type !== 2) return [];
      const m = space.toScreen;
      return rawRings()
        .filter((ring) => ring.length >= 2 && space.ownsPoint(ring[0]!, ring[1]!))
        .map((ring) => [m.a * ring[0]! + m.c * ring[1]! + m.e, m.b * ring[0]! + m.d * ring[1]! + m.f]);
    },
    points() {
      if (points) return points;
      points = [];
      if (type !== 1) return points;
      const m = space.toScreen;
      for (const ring of rawRings()) {
        for (let i = 0; i < ring.length; i += 2) {
          const x = ring[i]!;
          const y = ring[i + 1]!;
          if (space.ownsPoint(x, y)) points.push([m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
        }
      }
      return points;
    },
    vertices() {
      if (type === 1) return this.points();
      if (vertices) return vertices;
      vertices = [];
      const m = space.toScreen;
      const add = (x: number, y: number) => {
        if (space.ownsPoint(x, y)) vertices!.push([m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
      };
      for (const ring of rawRings()) {
        for (let i = 0; i < ring.length; i += 2) add(ring[i]!, ring[i + 1]!);
        const closedAlready = ring[0] === ring[ring.length - 2] && ring[1] === ring[ring.length - 1];
        if (type === 3 && ring.length >= 4 && !closedAlready) add(ring[0]!, ring[1]!);
      }
      return vertices;
    },
  };
}

/** To 1/1024 of a tile unit (see tilePoint). */
const snap = (v: number): number => Math.round(v * 1024) / 1024;

/** Lines (polygon rings closed into open lines) cut to `clip` (null: uncut) in screen px. */
function openLines(type: 1 | 2 | 3, rings: Ring[], clip: Box | null, space: GeometrySpace): Ring[] {
  const out: Ring[] = [];
  if (type === 1) return out;
  for (const ring of rings) {
    const closedRing = type === 3 && ring.length >= 4 ? [...ring, ring[0]!, ring[1]!] : ring;
    for (const run of clip ? clipLine(closedRing, clip) : [closedRing]) {
      const screen = toScreen(run, space.toScreen, space.tolerance, false);
      if (screen.length) out.push(screen);
    }
  }
  return out;
}

function reverseRing(r: Ring): void {
  for (let i = 0, j = r.length - 2; i < j; i += 2, j -= 2) {
    const x = r[i]!;
    const y = r[i + 1]!;
    r[i] = r[j]!;
    r[i + 1] = r[j + 1]!;
    r[j] = x;
    r[j + 1] = y;
  }
}
