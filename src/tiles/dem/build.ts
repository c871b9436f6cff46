// Cuts elevation grids (from .hgt or GeoTIFF) into a raster-DEM MBTiles: for every 256 px tile from
// minzoom to maxzoom over the grids' extent, each pixel centre is sampled bilinearly from the grid that
// covers it and encoded as Terrarium or Terrain-RGB PNG. Pixels without data (a void in the grid, or no
// grid at all: beyond the bounds, or in the gaps of a mosaic of files that are not a rectangle) are
// drawn as 0 m, which maps show as flat sea level, and marked as no data in the tile (nodata.ts), so the
// elevation API answers "no data" there rather than 0 m. Tiles without any data are left out.
import { InvalidSource } from "../errors";
import { MbtilesWriter } from "../mbtiles";
import { cleanBounds, tileRange, type TileFacts } from "../source";
import { encodeDemTile, type DemEncoding } from "./encoding";
import { sampleGrid, type ElevationGrid } from "./grid";

export const DEM_TILE_SIZE = 256;
/** Beyond this the build would take hours on a small VM; the message asks for a lower maxzoom. */
export const MAX_DEM_TILES = 250_000;
const MAX_DEM_ZOOM = 16;

export interface DemBuildOptions {
  encoding: DemEncoding;
  minzoom?: number;
  maxzoom?: number;
  outPath: string;
  name: string;
  description: string;
  attribution: string;
  label: string;
}

export interface DemBuildResult {
  facts: TileFacts;
  tiles: number;
  bytes: number;
  /** Pixels of maxzoom whose centres lie inside the bounds, and how many of them no grid covers (a mosaic's gaps). */
  pixelsInBounds: number;
  pixelsUncovered: number;
}

const covers = (g: ElevationGrid, lon: number, lat: number) => lon >= g.bounds[0] && lon <= g.bounds[2] && lat >= g.bounds[1] && lat <= g.bounds[3];
const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/**
 * The height of the pixel centred at lon/lat (lon ± halfLon, latS..latN): from the first grid with data
 * at its centre; else, when no grid holds the centre but the pixel reaches over a grid's edge, the
 * height at that edge (part of the pixel lies on the data, so it is not no-data: a point on the last
 * column of a file must answer, whichever side of it the pixel centre falls). Null for no data.
 */
function pixelHeight(grids: ElevationGrid[], lon: number, lat: number, halfLon: number, latS: number, latN: number): number | null {
  for (const g of grids) {
    const h = sampleGrid(g, lon, lat);
    if (h !== null) return h;
  }
  if (grids.some((g) => covers(g, lon, lat))) return null; // a void
  for (const g of grids) {
    const edgeLon = clamp(lon, g.bounds[0], g.bounds[2]);
    const edgeLat = clamp(lat, g.bounds[1], g.bounds[3]);
    if (Math.abs(edgeLon - lon) > halfLon || edgeLat < latS || edgeLat > latN) continue;
    const h = sampleGrid(g, edgeLon, edgeLat);
    if (h !== null) return h;
  }
  return null;
}

/** The union of the grids' bounds. */
export function gridsBounds(grids: ElevationGrid[]): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const g of grids) {
    b[0] = Math.min(b[0], g.bounds[0]);
    b[1] = Math.min(b[1], g.bounds[1]);
    b[2] = Math.max(b[2], g.bounds[2]);
    b[3] = Math.max(b[3], g.bounds[3]);
  }
  return b;
}

/** The zoom whose pixels are about as fine as the finest grid's samples (more would invent detail). */
export function nativeZoom(grids: ElevationGrid[]): number {
  const finest = Math.min(...grids.map((g) => Math.min(g.dLon, g.dLat)));
  return Math.max(0, Math.min(MAX_DEM_ZOOM, Math.ceil(Math.log2(360 / (finest * DEM_TILE_SIZE)))));
}

function countTiles(bounds: [number, number, number, number], minzoom: number, maxzoom: number): number {
  let n = 0;
  for (let z = minzoom; z <= maxzoom; z++) {
    const r = tileRange(bounds, z);
    n += (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1);
  }
  return n;
}

export function buildDemTiles(grids: ElevationGrid[], opts: DemBuildOptions, report: (progress: number, tiles: number) => void): DemBuildResult {
  const bounds = cleanBounds(gridsBounds(grids));
  const maxzoom = opts.maxzoom ?? Math.max(nativeZoom(grids), opts.minzoom ?? 0);
  const minzoom = opts.minzoom ?? 0;
  if (minzoom > maxzoom) throw new InvalidSource(`recipe minzoom ${minzoom} is above the maxzoom ${maxzoom}`);
  const total = countTiles(bounds, minzoom, maxzoom);
  if (total > MAX_DEM_TILES) throw new InvalidSource(`${opts.label}: zooms ${minzoom}-${maxzoom} over this extent make ${total} tiles (limit ${MAX_DEM_TILES}); choose a lower maxzoom`);
  const size = DEM_TILE_SIZE;
  const heights = new Float32Array(size * size);
  const lons = new Float64Array(size);
  const writer = new MbtilesWriter(opts.outPath);
  let pixelsInBounds = 0;
  let pixelsUncovered = 0;
  try {
    let done = 0;
    for (let z = minzoom; z <= maxzoom; z++) {
      const world = size * 2 ** z;
      const halfLon = 180 / world;
      const latAt = (row: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / world))) * 180) / Math.PI;
      const r = tileRange(bounds, z);
      for (let y = r.minY; y <= r.maxY; y++)
        for (let x = r.minX; x <= r.maxX; x++) {
          for (let i = 0; i < size; i++) lons[i] = ((x * size + i + 0.5) / world) * 360 - 180;
          let covered = 0;
          for (let j = 0; j < size; j++) {
            const row = y * size + j;
            const [lat, latN, latS] = [latAt(row + 0.5), latAt(row), latAt(row + 1)];
            for (let i = 0; i < size; i++) {
              const h = pixelHeight(grids, lons[i]!, lat, halfLon, latS, latN);
              if (h !== null) covered++;
              heights[j * size + i] = h ?? NaN;
              if (z === maxzoom && lons[i]! >= bounds[0] && lons[i]! <= bounds[2] && lat >= bounds[1] && lat <= bounds[3]) {
                pixelsInBounds++;
                if (h === null && !grids.some((g) => covers(g, lons[i]!, lat))) pixelsUncovered++;
              }
            }
          }
          if (covered) writer.put(z, x, y, encodeDemTile(heights, size, opts.encoding));
          if ((++done & 15) === 0) report(done / total, writer.count);
        }
    }
    if (!writer.count) throw new InvalidSource(`${opts.label}: the elevation data holds no heights (every sample is a void or no-data value)`);
    const centerZoom = Math.min(maxzoom, Math.max(minzoom, Math.round(Math.log2(360 / Math.max(bounds[2] - bounds[0], 1e-6)))));
    const facts: TileFacts = {
      format: "png",
      encoding: opts.encoding,
      tile_size: DEM_TILE_SIZE,
      minzoom,
      maxzoom,
      bounds,
      center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, centerZoom],
      vector_layers: [],
      attribution: opts.attribution || undefined,
      name: opts.name,
      description: opts.description || undefined,
    };
    writer.finish({
      name: opts.name,
      description: opts.description,
      attribution: opts.attribution,
      format: "png",
      encoding: opts.encoding,
      type: "baselayer",
      version: "1",
      minzoom: String(minzoom),
      maxzoom: String(maxzoom),
      bounds: bounds.join(","),
      center: facts.center.join(","),
      generator: "mapstead (raster-dem)",
    });
    return { facts, tiles: writer.count, bytes: writer.bytes, pixelsInBounds, pixelsUncovered };
  } catch (err) {
    writer.abort();
    throw err;
  }
}
