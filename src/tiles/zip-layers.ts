// A zip upload holds one layer or several: each .shp (with its .dbf, .prj and .cpg) and each GeoJSON,
// NDJSON, CSV or FlatGeobuf file is one, named after the file (a GeoPackage: one per feature table). The entries are streamed out to scratch
// files beside the archive being written (zip-extract.ts, with its traversal and zip-bomb checks), and
// every reader then streams from those files.
import { closeSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { ARCHIVE_FORMATS, detectFormat } from "./detect";
import { InvalidSource } from "./errors";
import type { SourceFile } from "./process";
import { looksLikeGeopackage } from "./readers/geopackage";
import type { ShapefileParts } from "./readers/shapefile";
import { extractZip } from "./zip-extract";

const SHAPE_PART = /\.(shp|dbf|prj|cpg)$/i;
const DATA_ENTRY = /\.(geojson|json|ndjson|geojsonl|geojsons|csv|tsv|fgb|gpkg)$/i;

function head(path: string): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const bytes = Buffer.alloc(64 * 1024);
    return bytes.subarray(0, readSync(fd, bytes, 0, bytes.length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * The layers of a zip upload. Scratch files are pushed to `scratch` as they are made; the caller
 * removes them, also when this throws. Files that are not geographic data (a metadata.json, a CSV of
 * codes beside a Shapefile, as GIS exports ship them) are left out with a note in `notes`, unless
 * nothing usable is left.
 */
export async function expandZip(source: SourceFile, scratchPrefix: string, scratch: string[], notes: string[]): Promise<SourceFile[]> {
  const files = await extractZip(source.path, source.label, scratchPrefix, (n) => SHAPE_PART.test(n) || DATA_ENTRY.test(n), scratch);
  const names = [...files.keys()];
  const shps = names.filter((n) => /\.shp$/i.test(n)).sort();
  const data = names.filter((n) => DATA_ENTRY.test(n)).sort();
  if (!shps.length && !data.length)
    throw new InvalidSource(`${source.label}: the zip holds no .shp file (nor GeoJSON, CSV, FlatGeobuf or GeoPackage); zip the .shp, .shx, .dbf and .prj of one layer together`);
  // A lone Shapefile is the upload's one layer, named like a single file would be.
  const alone = shps.length === 1 && !data.length;
  const sources: SourceFile[] = shps.map((shp) => {
    const stem = shp.slice(0, -4).toLowerCase();
    const sibling = (ext: string) => files.get(names.find((n) => n.toLowerCase() === `${stem}.${ext}`) ?? "");
    const shapefile: ShapefileParts = { name: shp, shp: files.get(shp)!, dbf: sibling("dbf"), prj: sibling("prj"), cpg: sibling("cpg") };
    return { ...source, fileName: alone ? source.fileName : basename(shp), entryPath: shp, shapefile };
  });
  const unusable: string[] = [];
  for (const name of data) {
    const path = files.get(name)!;
    let detected = detectFormat(head(path), { filename: name });
    if (detected.format === "mbtiles" && looksLikeGeopackage(path)) detected = { format: "geopackage" };
    if (detected.format === null) unusable.push(`${name} in the zip is not usable: ${detected.reason}`);
    else if (ARCHIVE_FORMATS.includes(detected.format) || detected.format === "shapefile") throw new InvalidSource(`${source.label}: ${name} in the zip is an archive; upload archives alone`);
    else sources.push({ path, format: detected.format, label: `${source.label} (${name})`, fileName: basename(name), entryPath: name });
  }
  if (unusable.length && !sources.length) throw new InvalidSource(`${source.label}: ${unusable[0]}`);
  for (const problem of unusable) notes.push(`${source.label}: ${problem}; left out`);
  return sources;
}
