// A zip may hold several layers: each .shp (with its .dbf, .prj and .cpg) and each GeoJSON, NDJSON,
// CSV or FlatGeobuf file is one, named after the file. Data files are inflated (with the same traversal
// and zip-bomb checks as Shapefiles) to scratch files beside the archive being written.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { ARCHIVE_FORMATS, detectFormat } from "./detect";
import { InvalidSource } from "./errors";
import type { SourceFile } from "./process";
import { unzipChecked, zipEntries } from "./readers/shapefile";

const DATA_ENTRY = /\.(geojson|json|ndjson|geojsonl|geojsons|csv|tsv|fgb)$/i;

/** The layers of a zip upload, and the scratch files made for them (the caller removes those). */
export async function expandZip(source: SourceFile, scratchPrefix: string): Promise<{ sources: SourceFile[]; scratch: string[] }> {
  const zip = await Bun.file(source.path).bytes();
  const names = zipEntries(zip, source.label);
  const shps = names.filter((n) => /\.shp$/i.test(n)).sort();
  const data = names.filter((n) => DATA_ENTRY.test(n)).sort();
  // One Shapefile (or none: its reader says what is missing) is read as before.
  if (!data.length && shps.length <= 1) return { sources: [source], scratch: [] };
  const sources: SourceFile[] = shps.map((shp) => ({ ...source, fileName: basename(shp), entry: shp }));
  const scratch: string[] = [];
  for (const [i, name] of data.entries()) {
    const inflated = unzipChecked(zip, source.label, (n) => n === name)[name];
    if (!inflated) continue;
    const detected = detectFormat(inflated.subarray(0, 64 * 1024), { filename: name });
    if (detected.format === null || ARCHIVE_FORMATS.includes(detected.format))
      throw new InvalidSource(`${source.label}: ${name} in the zip ${detected.format === null ? `is not usable: ${detected.reason}` : "is a tile archive; upload archives alone"}`);
    const path = `${scratchPrefix}-${i}`;
    scratch.push(path);
    writeFileSync(path, inflated);
    sources.push({ path, format: detected.format, label: `${source.label} (${name})`, fileName: basename(name) });
  }
  return { sources, scratch };
}
