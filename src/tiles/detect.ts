// Tells what an upload is from its first bytes (magic numbers, JSON shape, CSV header), so
// `curl --data-binary @file` works without naming the type. Content-Type and file name are hints only.

import { jsonHeadShape, jsonKind, parsedShape } from "./json-head";
import { coordinatesNamed, refusedCrs } from "./readers/geojson-crs";

export type SourceFormat = "geojson" | "ndjson" | "csv" | "shapefile" | "flatgeobuf" | "geopackage" | "mbtiles" | "pmtiles" | "geotiff" | "hgt";

/** Elevation rasters: built into a raster-DEM tileset, never read as features. */
export const ELEVATION_FORMATS: SourceFormat[] = ["geotiff", "hgt"];

export const ARCHIVE_FORMATS: SourceFormat[] = ["mbtiles", "pmtiles"];

export type Detection = { format: SourceFormat } | { format: null; reason: string; invalid?: boolean };

// Column names that say longitude/latitude, then the generic x/y: a file with both (x/y in a national grid
// beside lon/lat, as GIS exports add them) is read from the lon/lat ones wherever they stand.
const LON = ["lon", "lng", "long", "longitude", "lon_x", "longitude_x", "decimallongitude"];
const LAT = ["lat", "latitude", "lat_y", "latitude_y", "decimallatitude"];

const startsWith = (b: Uint8Array, s: string) => b.length >= s.length && [...s].every((c, i) => b[i] === c.charCodeAt(0));

/** GeoPackage's SQLite application_id (header offset 68): 'GPKG' since 1.2, 'GP10' and 'GP11' before. */
const GPKG_APPLICATION_IDS = new Set([0x47504b47, 0x47503130, 0x47503131]);

/** A SQLite file whose header application_id says GeoPackage (one without may still be: see looksLikeGeopackage). */
export function isGeopackageHeader(head: Uint8Array): boolean {
  return head.length >= 72 && GPKG_APPLICATION_IDS.has(new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(68, false));
}

export function csvDelimiter(header: string): string {
  const counts = [",", ";", "\t", "|"].map((d) => [d, header.split(d).length - 1] as const).sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ",";
}

/** Column indices of longitude and latitude in a CSV header, or null: named longitude/latitude columns first, else x/y. */
export function lonLatColumns(names: string[]): { lon: number; lat: number } | null {
  const norm = names.map((n) => n.trim().replace(/^"|"$/g, "").trim().toLowerCase());
  const column = (names: string[], generic: string) => {
    const named = norm.findIndex((n) => names.includes(n));
    return named >= 0 ? named : norm.indexOf(generic);
  };
  const lon = column(LON, "x");
  const lat = column(LAT, "y");
  return lon >= 0 && lat >= 0 ? { lon, lat } : null;
}

/** Name of the first entry of a zip, from its local file header. */
function firstZipEntry(head: Uint8Array): string {
  if (head.length < 30) return "";
  const length = head[26]! | (head[27]! << 8);
  return new TextDecoder().decode(head.subarray(30, Math.min(head.length, 30 + length)));
}

function firstLine(text: string): string {
  const nl = text.search(/\r?\n/);
  return nl < 0 ? text : text.slice(0, nl);
}

const GEOJSON_TYPES = new Set(["FeatureCollection", "Feature", "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]);
const NOT_GEOJSON = 'JSON without a GeoJSON "type" member (FeatureCollection, Feature or a geometry)';
const NOT_TOPOJSON = "TopoJSON, not GeoJSON; convert it first (topojson-client's topo2geo, or ogr2ogr -f GeoJSON out.geojson in.json)";
const NOT_ESRIJSON =
  "Esri JSON (an ArcGIS REST or ESRIJSON export), not GeoJSON; convert it first with ogr2ogr -f GeoJSON out.geojson in.json, or ask the ArcGIS REST query for f=geojson";

/** SRTM tiles: 1201 x 1201 (3 arc-seconds) or 3601 x 3601 (1 arc-second) big-endian 16-bit heights. */
const SRTM_SIDES = [1201, 3601];

/**
 * Unknown content of exactly an SRTM tile's size is most likely a .hgt sent without its name, which alone
 * says where the tile lies (curl --data-binary sends none): say how to send it rather than "unknown".
 */
function srtmWithoutName(size: number | undefined, filename: string | null | undefined): Detection | null {
  const side = SRTM_SIDES.find((n) => n * n * 2 === size);
  if (!side) return null;
  const what = `${size} bytes is the size of an SRTM .hgt tile (${side} x ${side} heights), whose position comes from its file name alone`;
  return {
    format: null,
    invalid: true,
    reason: filename
      ? `${what}; if it is one, name it after its south-west corner, like N46E007.hgt`
      : `${what}, and the upload has none; add ?filename=N46E007.hgt (its south-west corner) or send the name in Content-Disposition (curl -F file=@N46E007.hgt)`,
  };
}

/**
 * @param head the first bytes of the file (64 KiB is plenty)
 * @param hints Content-Type and file name, used only where the content is ambiguous, and the file's size
 */
export function detectFormat(head: Uint8Array, hints: { contentType?: string | null; filename?: string | null; size?: number } = {}): Detection {
  if (head.length === 0) return { format: null, reason: "the upload is empty" };
  if (startsWith(head, "SQLite format 3\0")) return { format: isGeopackageHeader(head) ? "geopackage" : "mbtiles" };
  if (startsWith(head, "PMTiles")) return { format: "pmtiles" };
  if (startsWith(head, "PK\x03\x04") && (/\.hgt$/i.test(firstZipEntry(head)) || /\.hgt\.zip$/i.test(hints.filename ?? ""))) return { format: "hgt" };
  if (startsWith(head, "PK\x03\x04") || startsWith(head, "PK\x05\x06")) return { format: "shapefile" };
  if (startsWith(head, "II*\0") || startsWith(head, "MM\0*") || startsWith(head, "II+\0") || startsWith(head, "MM\0+")) return { format: "geotiff" };
  // SRTM .hgt files have no header at all: only the name tells them (and gives their position).
  if (/\.hgt$/i.test(hints.filename ?? "")) return { format: "hgt" };
  if (startsWith(head, "fgb\x03")) return { format: "flatgeobuf" };
  if (head[0] === 0x1f && head[1] === 0x8b) return { format: null, reason: "gzip-compressed data; upload the file uncompressed (or zip a Shapefile)" };
  if (startsWith(head, "%PDF") || head[0] === 0x89 || (head[0] === 0xff && head[1] === 0xd8)) return { format: null, reason: "a document or image, not geographic data" };

  const text = new TextDecoder("utf-8", { fatal: false }).decode(head).replace(/^\uFEFF/, "");
  if (text.includes("\u0000")) return srtmWithoutName(hints.size, hints.filename) ?? { format: null, reason: "binary data of an unknown kind" };
  const trimmed = text.trimStart();
  if (trimmed.startsWith("\u001e")) return { format: "ndjson" }; // RFC 8142 GeoJSON text sequence
  if (trimmed.startsWith("{")) {
    const line = firstLine(trimmed).trim();
    let first: unknown;
    let whole = true;
    try {
      first = JSON.parse(line);
    } catch {
      // A pretty-printed document (one JSON value over many lines), or one line longer than the head.
      whole = false;
    }
    const shape = whole ? parsedShape(first) : jsonHeadShape(trimmed);
    const kind = shape ? jsonKind(shape, GEOJSON_TYPES) : null;
    if (kind === "topojson") return { format: null, invalid: true, reason: NOT_TOPOJSON };
    if (kind === "esrijson") return { format: null, invalid: true, reason: NOT_ESRIJSON };
    if (kind && "otherType" in kind) return { format: null, invalid: true, reason: NOT_GEOJSON };
    // GDAL's "crs" member naming a system this service cannot unproject: refused now, not after the wait.
    if (shape?.crsName !== undefined && coordinatesNamed(shape.crsName) === null) return { format: null, invalid: true, reason: refusedCrs(shape.crsName) };
    // One whole document on one line, or the first of many lines: either way it must be GeoJSON.
    if (whole) return kind ? { format: kind.geojson === "FeatureCollection" ? "geojson" : "ndjson" } : { format: null, invalid: true, reason: NOT_GEOJSON };
    if (kind || /"type"\s*:/.test(trimmed)) return { format: "geojson" };
    const name = hints.filename?.toLowerCase() ?? "";
    if (name.endsWith(".geojson") || name.endsWith(".json") || hints.contentType?.includes("json")) return { format: "geojson" };
    return { format: null, invalid: true, reason: NOT_GEOJSON };
  }
  if (trimmed.startsWith("[")) return { format: null, invalid: true, reason: "a JSON array is not GeoJSON; wrap the features in a FeatureCollection or send one Feature per line" };
  const header = firstLine(trimmed);
  const delimiter = csvDelimiter(header);
  if (header.includes(delimiter) && header.length < 10_000) {
    if (lonLatColumns(header.split(delimiter))) return { format: "csv" };
    const name = hints.filename?.toLowerCase() ?? "";
    const csvHinted = name.endsWith(".csv") || name.endsWith(".tsv") || /csv|tab-separated/.test(hints.contentType ?? "");
    const lines = trimmed.split(/\r?\n/, 3);
    const count = (l: string) => l.split(delimiter).length;
    const tabular = lines.length >= 2 && lines[1]!.trim() !== "" && count(lines[1]!) === count(header);
    if (csvHinted || tabular)
      return {
        format: null,
        invalid: true,
        reason: `CSV header has no longitude/latitude columns (found: ${header.split(delimiter).slice(0, 12).join(", ")}); name them lon/lng/longitude/x and lat/latitude/y`,
      };
  }
  return srtmWithoutName(hints.size, hints.filename) ?? { format: null, reason: "the content is not a geographic format this service reads" };
}
