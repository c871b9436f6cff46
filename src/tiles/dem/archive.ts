// A quick look at an uploaded MBTiles/PMTiles before it is queued as a raster DEM, so a vector archive
// or lossy WebP tiles get their 422 at upload time instead of a failed version minutes later.
import { Database } from "bun:sqlite";
import { webpInfo } from "./webp";

const PMTILES_TILE_TYPES: Record<number, string> = { 1: "mvt", 2: "png", 3: "jpg", 4: "webp", 5: "avif" };

function sniff(data: Uint8Array | undefined): string | null {
  if (!data || data.length < 12) return null;
  if (data[0] === 0x89 && data[1] === 0x50) return "png";
  if (data[0] === 0xff && data[1] === 0xd8) return "jpg";
  if (data[0] === 0x52 && data[1] === 0x49 && data[8] === 0x57 && data[9] === 0x45) return "webp";
  return "mvt";
}

/** The tile type an archive declares (or holds), or null when it cannot be told cheaply. */
export async function archiveTileType(path: string, format: "mbtiles" | "pmtiles"): Promise<string | null> {
  if (format === "pmtiles") {
    const header = new Uint8Array(await Bun.file(path).slice(0, 127).arrayBuffer());
    return header.length === 127 ? (PMTILES_TILE_TYPES[header[99]!] ?? null) : null;
  }
  let db: Database | null = null;
  try {
    db = new Database(path, { readonly: true });
    const declared = db.query<{ value: string }, []>("SELECT value FROM metadata WHERE name = 'format'").get()?.value?.toLowerCase();
    if (declared) return declared === "pbf" ? "mvt" : declared === "jpeg" ? "jpg" : declared;
    return sniff(db.query<{ tile_data: Uint8Array }, []>("SELECT tile_data FROM tiles LIMIT 1").get()?.tile_data);
  } catch {
    return null; // not readable as SQLite: processing says exactly what is wrong
  } finally {
    db?.close();
  }
}

/**
 * Whether an MBTiles' first tile is a lossy WebP (heights would be wrong). A PMTiles is not looked into
 * here: processing decodes one of its tiles and fails the version with the same reason.
 */
export function firstTileIsLossyWebp(path: string, format: "mbtiles" | "pmtiles"): boolean {
  if (format !== "mbtiles") return false;
  let db: Database | null = null;
  try {
    db = new Database(path, { readonly: true });
    const tile = db.query<{ tile_data: Uint8Array }, []>("SELECT tile_data FROM tiles WHERE length(tile_data) > 0 LIMIT 1").get()?.tile_data;
    return !!tile && webpInfo(tile)?.kind === "lossy";
  } catch {
    return false;
  } finally {
    db?.close();
  }
}
