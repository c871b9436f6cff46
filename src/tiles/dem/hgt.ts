// SRTM .hgt files: a square of big-endian int16 heights in metres, N x N samples spanning exactly one
// degree (N = 1201 for 3 arc-seconds, 3601 for 1 arc-second; any N from 2 is read), the south-west
// corner named by the file name (N46E007.hgt), -32768 marking voids. Zips of .hgt files are read too,
// with the same distrust as sprite zips: unsafe names refused and sizes checked before inflating.
import { unzipSync } from "fflate";
import { InvalidSource } from "../errors";
import type { ElevationGrid } from "./grid";

const VOID = -32768;
/** Enough for a 4 x 4 degree block of 1 arc-second tiles; each takes ~52 MB as floats while tiling. */
export const MAX_HGT_FILES = 16;
const MAX_SIDE = 3601;

/** South-west corner from a name like N46E007.hgt (any directory, any case), or null. */
export function hgtCorner(name: string): { lon: number; lat: number } | null {
  const m = /([NS])(\d{1,2})([EW])(\d{1,3})\.hgt$/i.exec(name);
  if (!m) return null;
  const lat = Number(m[2]) * (m[1]!.toUpperCase() === "S" ? -1 : 1);
  const lon = Number(m[4]) * (m[3]!.toUpperCase() === "W" ? -1 : 1);
  return lat >= -90 && lat < 90 && lon >= -180 && lon < 180 ? { lon, lat } : null;
}

export function readHgt(bytes: Uint8Array, name: string): ElevationGrid {
  const corner = hgtCorner(name);
  if (!corner) throw new InvalidSource(`${name}: an .hgt file must be named after its south-west corner, like N46E007.hgt`);
  const side = Math.round(Math.sqrt(bytes.length / 2));
  if (side < 2 || side > MAX_SIDE || side * side * 2 !== bytes.length)
    throw new InvalidSource(`${name}: ${bytes.length} bytes is not a square grid of 16-bit heights (1201 x 1201 or 3601 x 3601 samples)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(side * side);
  for (let i = 0; i < values.length; i++) {
    const h = view.getInt16(i * 2, false);
    values[i] = h === VOID ? NaN : h;
  }
  const step = 1 / (side - 1);
  return { lon0: corner.lon, lat0: corner.lat + 1, dLon: step, dLat: step, width: side, height: side, values, bounds: [corner.lon, corner.lat, corner.lon + 1, corner.lat + 1] };
}

const isClutter = (name: string) => name.startsWith("__MACOSX/") || name.split("/").some((p) => p.startsWith(".")) || name.endsWith("/");

/** Every .hgt in a zip (other files are ignored); refuses unsafe names, oversized entries and empty zips. */
export function readHgtZip(zip: Uint8Array, label: string): ElevationGrid[] {
  const names: string[] = [];
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter(file) {
        const name = file.name;
        if (name.includes("\\") || name.startsWith("/") || name.split("/").includes("..") || name.includes("\u0000"))
          throw new InvalidSource(`${label}: zip entry '${name.slice(0, 100)}' has an unsafe path`);
        if (isClutter(name) || !/\.hgt$/i.test(name)) return false;
        if (names.length >= MAX_HGT_FILES) throw new InvalidSource(`${label}: the zip holds more than ${MAX_HGT_FILES} .hgt files; import them in several tilesets or fewer at a time`);
        if (file.originalSize > MAX_SIDE * MAX_SIDE * 2) throw new InvalidSource(`${label}: zip entry '${name.slice(0, 100)}' is ${file.originalSize} bytes, larger than any .hgt file`);
        if (file.compression !== 0 && file.compression !== 8) throw new InvalidSource(`${label}: zip entry '${name.slice(0, 100)}' uses an unsupported compression method`);
        names.push(name);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: the zip could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!names.length) throw new InvalidSource(`${label}: the zip holds no .hgt files`);
  return names.map((name) => readHgt(files[name]!, `${label}: ${name}`));
}
