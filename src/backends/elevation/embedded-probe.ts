// Health of the elevation backend ELEVATION chooses, for /health/detailed and /setup/preflight: the
// OpenTopoData probe when that answers, else a look at the embedded DEM tileset in the database (does
// it exist, is it published, is it a DEM), with its coverage, size and age, and the fix when it is wrong.
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config";
import type { TileFacts } from "../../tiles/source";
import type { ProbeResult } from "../probe";
import { demTilesetProblem } from "./embedded";
import { probeElevation } from "./probe";
import { effectiveDemTileset, storedDemTileset } from "./dem-setting";
import { elevationChoice } from "./select";

interface Row {
  published_version: number | null;
  state: string | null;
  metadata: string | null;
  archive_path: string | null;
  updated_at: number | null;
}

const UPLOAD_FIX = "upload elevation to it (GeoTIFF, SRTM .hgt or zipped .hgt, or an MBTiles/PMTiles of Terrarium or Terrain-RGB PNG or lossless WebP tiles with encoding=terrarium|mapbox) and publish that version";

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** What the console and the probe show of a usable DEM tileset. */
export interface DemTilesetFacts {
  tileset: string;
  version: number;
  encoding: string;
  format: string;
  minzoom: number;
  maxzoom: number;
  bounds: [number, number, number, number];
  bytes: number;
  built_at: string | null;
}

/** The published DEM of owner/slug with its coverage, or why it cannot answer and the fix. */
export function inspectDemTileset(config: Config, sqlite: Database, tileset: { owner: string; slug: string }): { facts: DemTilesetFacts } | { problem: string; fix: string } {
  const name = `${tileset.owner}/${tileset.slug}`;
  const row = sqlite
    .query<Row, [string, string]>(
      `SELECT t.published_version, v.state, v.metadata, v.archive_path, v.updated_at FROM tilesets t JOIN orgs o ON o.id = t.org_id
       LEFT JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = t.published_version WHERE o.slug = ?1 AND t.slug = ?2`,
    )
    .get(tileset.owner, tileset.slug);
  if (!row) return { problem: demTilesetProblem(name, "missing"), fix: `Create the tileset ${name} and ${UPLOAD_FIX}, or choose an existing DEM tileset` };
  if (row.published_version === null) return { problem: demTilesetProblem(name, "unpublished"), fix: `Publish a ready version of ${name}, or ${UPLOAD_FIX}` };
  const facts = row.metadata ? (JSON.parse(row.metadata) as TileFacts) : null;
  if (row.state !== "ready" || !facts || !row.archive_path) return { problem: demTilesetProblem(name, "not_ready"), fix: `Publish a ready version of ${name}` };
  if (!facts.encoding) return { problem: demTilesetProblem(name, "not_dem", facts.format), fix: `Choose a raster-DEM tileset, or ${UPLOAD_FIX}` };
  const size = statSync(join(config.dataDir, row.archive_path), { throwIfNoEntry: false })?.size;
  if (size === undefined) return { problem: `embedded DEM ${name}@${row.published_version}: its archive file is missing from DATA_DIR`, fix: `Upload the elevation data to ${name} again and publish it` };
  return {
    facts: {
      tileset: name,
      version: row.published_version,
      encoding: facts.encoding,
      format: facts.format,
      minzoom: facts.minzoom,
      maxzoom: facts.maxzoom,
      bounds: facts.bounds,
      bytes: size,
      built_at: row.updated_at ? new Date(row.updated_at).toISOString() : null,
    },
  };
}

export function probeEmbeddedElevation(config: Config, sqlite: Database | null, tileset: { owner: string; slug: string }): ProbeResult {
  const name = `${tileset.owner}/${tileset.slug}`;
  if (!sqlite) return { status: "down", detail: `embedded DEM ${name}: the database could not be opened`, fix: "Fix the database first (see the sqlite check)" };
  const inspected = inspectDemTileset(config, sqlite, tileset);
  if ("problem" in inspected) return { status: "down", detail: inspected.problem, fix: inspected.fix };
  const f = inspected.facts;
  const age = f.built_at ? `, built ${f.built_at.slice(0, 10)}` : "";
  return {
    status: "ok",
    backend: "embedded",
    detail: `embedded DEM ${name}@${f.version} (${f.encoding}, zoom ${f.minzoom}-${f.maxzoom}, covers ${f.bounds.map((b) => Math.round(b * 1000) / 1000).join(",")}, ${mib(f.bytes)}${age})`,
  };
}

/**
 * The probe of whichever backend answers the elevation API, tagged with its name. The OpenTopoData probe
 * is a real request (callers pass a cached one); the embedded one is a database read, always fresh.
 */
export async function probeElevationBackend(config: Config, sqlite: Database | null, probeOpenTopoData = () => probeElevation(config)): Promise<ProbeResult> {
  const stored = sqlite && !config.elevationTileset ? storedDemTileset(sqlite) : null;
  const choice = elevationChoice({ ...config, elevationTileset: effectiveDemTileset(config, stored)?.tileset ?? null });
  if (choice.backend === "opentopodata") {
    const r = await probeOpenTopoData();
    return { ...r, backend: "opentopodata", detail: `OpenTopoData ${r.detail}` };
  }
  if (choice.backend === "embedded") return { backend: "embedded", ...probeEmbeddedElevation(config, sqlite, choice.tileset) };
  if (choice.reason === "off")
    return { status: "not_configured", backend: "none", detail: "ELEVATION=off: elevation routes answer 503 ELEVATION_NOT_CONFIGURED", fix: "Set ELEVATION=auto (or embedded/opentopodata) to serve elevation" };
  return {
    status: "not_configured",
    backend: "none",
    detail: "No DEM tileset chosen and ELEVATION_INTERNAL_URL is not set; elevation routes answer 503 ELEVATION_NOT_CONFIGURED",
    fix: "Import a DEM tileset (GeoTIFF or SRTM .hgt, built in the server) and choose it with mapstead elevation use --org ORG --tileset SLUG or in the console (Elevation), or set ELEVATION_TILESET=owner/slug, or set ELEVATION_INTERNAL_URL to an OpenTopoData dataset URL",
  };
}
