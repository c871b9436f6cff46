// The Tilequery API (Mapbox's, on published vector tilesets): which features of a tileset are at or near
// a point. The tiles are those the tile routes serve, read from the same open archives (the catalog in
// tiles.ts), each layer at its highest zoom: the tile holding the point and, when the radius reaches
// past its edges, its neighbours. Access is the tiles' access: a private tileset, or a version never
// published, answers only to its organization (the same 404 as a missing tileset otherwise).
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { BadRequest } from "../errors";
import type { Viewer } from "../domain/accounts/auth";
import { isSlug } from "../domain/orgs/slug";
import { parseVersionedSlug } from "../domain/orgs/versioned-slug";
import { IMMUTABLE, STABLE, type ReadAnswer } from "./answer";
import { EARTH_RADIUS_M, nearestOnFeature, type Nearest } from "../tiles/nearest";
import { gunzippedTileOrNull, tileRange } from "../tiles/source";
import type { PublishedCache } from "./published-cache";
import type { Served, TileCatalog } from "./tiles";
import { publishedVersion, tilesetMissing, visible } from "./tileset-access";

export const MAX_RADIUS_M = 10_000;
export const MAX_LIMIT = 50;
/** More tiles than this around the point and a layer is read at a lower zoom, whose tiles are larger. */
export const MAX_TILES = 36;
/**
 * The most tiles one query reads, the nearest first: reached only where even the lowest zoom the
 * tileset holds needs more (a tileset starting at z14 queried 10 km wide near the poles).
 */
const MAX_TILES_READ = 4 * MAX_TILES;
export const GEOMETRY_TYPES = ["point", "linestring", "polygon"] as const;
type GeometryType = (typeof GEOMETRY_TYPES)[number];
const TYPE_NAMES: Record<number, GeometryType> = { 1: "point", 2: "linestring", 3: "polygon" };

export interface TilequeryRequest {
  lon: number;
  lat: number;
  radius: number;
  limit: number;
  dedupe: boolean;
  geometry: GeometryType | null;
  layers: string[] | null;
}

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

/** The point of `{lon},{lat}.json` and the query parameters, validated (400s name the parameter). */
export function parseTilequery(coordinates: string, query: URLSearchParams): TilequeryRequest {
  if (!coordinates.endsWith(".json")) throw new BadRequest("The point must be written {lon},{lat}.json", { parameter: "lon,lat" });
  const parts = coordinates.slice(0, -5).split(",");
  if (parts.length !== 2) throw new BadRequest("The point must be written {lon},{lat}.json: two numbers separated by a comma", { parameter: "lon,lat" });
  const lon = coordinate(parts[0]!, "lon", 180);
  const lat = coordinate(parts[1]!, "lat", 90);

  let radius = 0;
  const radiusText = query.get("radius");
  if (radiusText !== null) {
    if (!NUMBER_RE.test(radiusText) || Number(radiusText) < 0 || Number(radiusText) > MAX_RADIUS_M)
      throw new BadRequest(`radius must be a number of metres from 0 to ${MAX_RADIUS_M}`, { parameter: "radius" });
    radius = Number(radiusText);
  }
  let limit = 5;
  const limitText = query.get("limit");
  if (limitText !== null) {
    if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT)
      throw new BadRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}`, { parameter: "limit" });
    limit = Number(limitText);
  }
  const dedupeText = query.get("dedupe");
  if (dedupeText !== null && dedupeText !== "true" && dedupeText !== "false") throw new BadRequest("dedupe must be true or false", { parameter: "dedupe" });
  const geometryText = query.get("geometry");
  if (geometryText !== null && !(GEOMETRY_TYPES as readonly string[]).includes(geometryText))
    throw new BadRequest(`geometry must be one of ${GEOMETRY_TYPES.join(", ")}`, { parameter: "geometry" });
  const layersText = query.get("layers");
  let layers: string[] | null = null;
  if (layersText !== null) {
    layers = layersText.split(",");
    if (layersText.length > 2000) throw new BadRequest("layers must be at most 2000 characters long", { parameter: "layers" });
    if (layers.some((name) => name === "")) throw new BadRequest("layers must be layer names separated by commas, none empty", { parameter: "layers" });
  }
  return { lon, lat, radius, limit, dedupe: dedupeText !== "false", geometry: (geometryText as GeometryType | null) ?? null, layers };
}

function coordinate(text: string, name: "lon" | "lat", max: number): number {
  if (!NUMBER_RE.test(text) || text.length > 40) throw new BadRequest(`${name} must be a number in degrees, not '${text.slice(0, 40)}'`, { parameter: name });
  const value = Number(text);
  if (Math.abs(value) > max) throw new BadRequest(`${name} must be from -${max} to ${max}`, { parameter: name });
  return value;
}

/** One feature of the answer, before its properties are built. */
interface Found extends Nearest {
  layer: string;
  type: GeometryType;
  id: number | undefined;
  properties: Record<string, unknown>;
  /** what makes two copies of a feature (from different tiles) the same feature */
  key: string;
}


/** The fractional tile row of a latitude at zoom z (clamped to Web Mercator's range). */
function tileRowOf(lat: number, z: number): number {
  const r = (Math.max(-85.0511287798066, Math.min(85.0511287798066, lat)) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z;
}

/** The tiles at zoom z whose area the circle of `radius` metres around the point may reach. */
function tileSpan(lon: number, lat: number, radius: number, z: number): { x0: number; width: number; minY: number; maxY: number } {
  const n = 2 ** z;
  const row = (phi: number) => Math.min(n - 1, Math.max(0, Math.floor(tileRowOf(phi, z))));
  const dLat = (radius / EARTH_RADIUS_M) * (180 / Math.PI);
  const dLon = Math.min(180, dLat / Math.cos((Math.min(89.9, Math.abs(lat)) * Math.PI) / 180));
  const x0 = Math.floor(((lon - dLon + 180) / 360) * n);
  const x1 = Math.floor(((lon + dLon + 180) / 360) * n);
  return { x0, width: Math.min(n, x1 - x0 + 1), minY: row(lat + dLat), maxY: row(lat - dLat) };
}

/** Addresses of the tiles at zoom z the query reads (columns past the antimeridian wrap around). */
export function tilesAround(lon: number, lat: number, radius: number, z: number): { x: number; y: number }[] {
  const { x0, width, minY, maxY } = tileSpan(lon, lat, radius, z);
  const n = 2 ** z;
  const tiles: { x: number; y: number }[] = [];
  for (let y = minY; y <= maxY; y++) for (let i = 0; i < width; i++) tiles.push({ x: (((x0 + i) % n) + n) % n, y });
  return tiles;
}

/** `tiles` (at zoom z) as they are when at most `max`, else the `max` nearest the point. */
function nearestFirst(tiles: { x: number; y: number }[], q: TilequeryRequest, z: number, max: number): { x: number; y: number }[] {
  if (tiles.length <= max) return tiles;
  const n = 2 ** z;
  const cx = ((q.lon + 180) / 360) * n;
  const cy = tileRowOf(q.lat, z);
  const away = ({ x, y }: { x: number; y: number }) => Math.min(Math.abs(x + 0.5 - cx), n - Math.abs(x + 0.5 - cx)) ** 2 + (y + 0.5 - cy) ** 2;
  return tiles.sort((a, b) => away(a) - away(b)).slice(0, max);
}

/** How many tiles the query would read at zoom z. */
const tileCount = (lon: number, lat: number, radius: number, z: number) => {
  const { width, minY, maxY } = tileSpan(lon, lat, radius, z);
  return width * (maxY - minY + 1);
};

export function createTilequery(catalog: TileCatalog, published: PublishedCache) {
  // Unzipped tiles, in the one published cache (a change of the tileset drops them): a click near the
  // last one reads the same few tiles again.
  const tiles = published.slot<Uint8Array | null>("query-tile");

  async function tileAt(served: Served, z: number, x: number, y: number): Promise<Uint8Array | null> {
    const address = `${z}/${x}/${y}`;
    const hit = tiles.get(served.owner, served.name, address);
    if (hit !== undefined) return hit;
    const tile = await served.source.getTile(z, x, y);
    const bytes = !tile || tile.data.length === 0 ? null : tile.encoding === "gzip" ? gunzippedTileOrNull(tile.data) : tile.data;
    tiles.set(served.owner, served.name, address, bytes, (bytes?.length ?? 0) + 128);
    return bytes;
  }

  /**
   * The zoom each layer is read at: its own highest (a layer may stop below the tileset's maxzoom, and
   * its tiles above that hold nothing of it), lowered while the radius would need more than MAX_TILES
   * tiles there. Layers the TileJSON does not list are read at the tileset's maxzoom.
   */
  function layersByZoom(served: Served, q: TilequeryRequest): Map<number, Set<string> | null> {
    const { facts } = served;
    const zoomFor = (top: number, bottom: number) => {
      let z = Math.max(facts.minzoom, Math.min(facts.maxzoom, top));
      while (z > Math.max(facts.minzoom, bottom) && tileCount(q.lon, q.lat, q.radius, z) > MAX_TILES) z--;
      return z;
    };
    const byZoom = new Map<number, Set<string> | null>();
    // null: every layer found at that zoom and not read at another.
    const others = zoomFor(facts.maxzoom, facts.minzoom);
    if (!q.layers) byZoom.set(others, null);
    for (const layer of facts.vector_layers) {
      if (q.layers && !q.layers.includes(layer.id)) continue;
      const z = zoomFor(layer.maxzoom ?? facts.maxzoom, layer.minzoom ?? facts.minzoom);
      if (!q.layers && z === others) continue;
      const names = byZoom.get(z) ?? new Set<string>();
      names.add(layer.id);
      byZoom.set(z, names);
    }
    return byZoom;
  }

  /** The tiles around the point that the archive may hold (inside its bounds), the nearest first when too many. */
  function tilesToRead(served: Served, q: TilequeryRequest, z: number): { x: number; y: number }[] {
    // Tiles outside the bounds hold nothing (the tile routes answer them 204): not read at all. The span
    // is cut to the bounds, and to a window around the point, before any tile is listed: a tileset whose
    // lowest zoom is high (an archive may hold only z24, or z30) has millions or billions of tiles under
    // a 10 km radius, and listing them all hung the request and filled the memory.
    const n = 2 ** z;
    const r = tileRange(served.facts.bounds, z);
    const { x0, width, minY, maxY } = tileSpan(q.lon, q.lat, q.radius, z);
    const cx = ((q.lon + 180) / 360) * n;
    const cy = tileRowOf(q.lat, z);
    const rows: [number, number] = [Math.max(minY, r.minY), Math.min(maxY, r.maxY)];
    // Columns of the span (x0 may be below 0 or the span end past n - 1: it wraps) inside the bounds' columns.
    const runs: [number, number][] = [];
    for (const shift of [-n, 0, n]) {
      const lo = Math.max(x0, r.minX + shift);
      const hi = Math.min(x0 + width - 1, r.maxX + shift);
      if (lo <= hi) runs.push([lo, hi]);
    }
    if (rows[0] > rows[1] || runs.length === 0) return [];
    const rowCount = rows[1] - rows[0] + 1;
    const columnCount = runs.reduce((sum, [lo, hi]) => sum + hi - lo + 1, 0);
    if (rowCount * columnCount > MAX_TILES_READ) {
      // A window around the point that still holds MAX_TILES_READ tiles when the span does: wider along
      // an axis when the span is narrow along the other.
      const near = ([lo, hi]: [number, number], c: number, half: number): [number, number] => [Math.max(lo, Math.min(hi, Math.floor(c)) - half), Math.min(hi, Math.max(lo, Math.floor(c)) + half)];
      const halfX = Math.max(12, Math.ceil(MAX_TILES_READ / Math.min(rowCount, 25)));
      const halfY = Math.max(12, Math.ceil(MAX_TILES_READ / Math.min(columnCount, 25)));
      rows.splice(0, 2, ...near(rows, cy, halfY));
      for (let i = 0; i < runs.length; i++) runs[i] = near(runs[i]!, cx, halfX);
    }
    const around: { x: number; y: number }[] = [];
    for (let y = rows[0]; y <= rows[1]; y++) for (const [lo, hi] of runs) for (let x = lo; x <= hi; x++) around.push({ x: ((x % n) + n) % n, y });
    return nearestFirst(around, q, z, MAX_TILES_READ);
  }

  async function featuresNear(served: Served, q: TilequeryRequest): Promise<Found[]> {
    const query: [number, number] = [q.lon, q.lat];
    const found: Found[] = [];
    const byZoom = layersByZoom(served, q);
    // Layers read at another zoom than the one of the layers the TileJSON does not list.
    const elsewhere = new Set<string>();
    for (const names of byZoom.values()) if (names) for (const name of names) elsewhere.add(name);
    // At most MAX_TILES_READ tiles a query in all, not at each zoom: an archive may give each of many
    // layers a zoom of its own (z0 to z30), and thirty zooms read thousands of tiles for one request.
    // The zooms needing fewest tiles take theirs first; none takes more than an even share of what is left.
    const groups = [...byZoom].map(([z, names]) => ({ z, names, tiles: tilesToRead(served, q, z) })).sort((a, b) => a.tiles.length - b.tiles.length);
    let left = MAX_TILES_READ;
    groups.forEach((group, i) => {
      group.tiles = nearestFirst(group.tiles, q, group.z, Math.max(1, Math.floor(left / (groups.length - i))));
      left -= group.tiles.length;
    });
    for (const { z, names, tiles } of groups) {
      const wanted = (layerName: string) => (names ? names.has(layerName) : !elsewhere.has(layerName));
      for (const { x, y } of tiles) {
        const bytes = await tileAt(served, z, x, y);
        if (!bytes) continue;
        try {
          const decoded = new VectorTile(new PbfReader(bytes));
          for (const [layerName, layer] of Object.entries(decoded.layers)) {
            if (!wanted(layerName)) continue;
            for (let i = 0; i < layer.length; i++) {
              const feature = layer.feature(i);
              const type = TYPE_NAMES[feature.type];
              if (!type || (q.geometry && q.geometry !== type)) continue;
              const nearest = nearestOnFeature(feature.type, feature.loadGeometry(), { z, x, y, extent: layer.extent }, query);
              if (!nearest || nearest.distance > q.radius) continue;
              const properties = feature.properties as Record<string, unknown>;
              const key = feature.id !== undefined ? `${layerName}\u0000${feature.id}` : `${layerName}\u0000${type}\u0000${JSON.stringify(properties)}`;
              found.push({ ...nearest, layer: layerName, type, id: feature.id, properties, key });
            }
          }
        } catch {
          // A damaged tile (the import samples an archive's tiles, it does not decode them all; the tile
          // routes pass its bytes on as they are) holds nothing this query can read: the other tiles
          // still answer, as a map still draws them, rather than the whole query failing as a 500.
        }
      }
    }
    return found;
  }

  function answerOf(served: Served, stable: boolean, q: TilequeryRequest, found: Found[]): ReadAnswer {
    let kept = found;
    if (q.dedupe) {
      const closest = new Map<string, Found>();
      for (const f of found) {
        const seen = closest.get(f.key);
        if (!seen || f.distance < seen.distance) closest.set(f.key, f);
      }
      kept = [...closest.values()];
    }
    kept.sort((a, b) => a.distance - b.distance);
    const features = kept.slice(0, q.limit).map((f) => ({
      type: "Feature",
      ...(f.id !== undefined ? { id: f.id } : {}),
      geometry: { type: "Point", coordinates: [round(f.point[0], 1e7), round(f.point[1], 1e7)] },
      properties: { ...f.properties, tilequery: { distance: round(f.distance, 100), geometry: f.type, layer: f.layer } },
    }));
    const cache = served.private ? "private" : stable ? STABLE : IMMUTABLE;
    return { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": cache }, body: JSON.stringify({ type: "FeatureCollection", features }) };
  }

  return {
    /** GET /tilequery/v1/{owner}/{tileset}[@{version}]/{lon},{lat}.json */
    async query(owner: string, name: string, coordinates: string, query: URLSearchParams, viewer: Viewer): Promise<ReadAnswer> {
      const q = parseTilequery(coordinates, query);
      const parsed = parseVersionedSlug(name);
      if (!parsed || !isSlug(owner)) throw tilesetMissing(owner, name);
      const version = parsed.version ?? publishedVersion(catalog, owner, parsed.slug, viewer);
      const served = await catalog.version(owner, parsed.slug, version);
      if (!visible(served, viewer)) throw tilesetMissing(owner, name);
      if (served.facts.format !== "pbf")
        throw new BadRequest(`Tilequery needs a vector tileset: '${owner}/${name}' holds ${served.facts.format} (raster) tiles`, { parameter: "tileset" });
      if (q.layers) {
        const known = served.facts.vector_layers.map((l) => l.id);
        const unknown = q.layers.filter((l) => !known.includes(l));
        if (unknown.length)
          throw new BadRequest(`layers: no layer ${unknown.map((l) => `'${l.slice(0, 64)}'`).slice(0, 10).join(", ")} in this tileset; its layers are ${known.map((l) => `'${l}'`).join(", ")}`, { parameter: "layers", unknown: unknown.slice(0, 10), layers: known });
      }
      return answerOf(served, parsed.version === null, q, await featuresNear(served, q));
    },
  };
}


const round = (value: number, per: number) => Math.round(value * per) / per;

export type Tilequery = ReturnType<typeof createTilequery>;
