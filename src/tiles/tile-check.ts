// Does a stored tile hold what its archive declares? Imported archives are published with a one-year
// immutable cache, so bytes that are not MVT (or not the declared image type) must be refused at import,
// not discovered by map clients. Checks are structural and cheap: image signatures, and for vector tiles
// a walk over the protobuf fields of the tile and its layers (after gunzip, with a size cap).
import { Gunzip } from "fflate";
import { InvalidSource } from "./errors";
import { isGzip, type TileFormat } from "./source";

const MAX_TILE_BYTES = 32 * 1024 * 1024;

function startsWith(data: Uint8Array, bytes: number[], at = 0): boolean {
  return data.length >= at + bytes.length && bytes.every((b, i) => data[at + i] === b);
}

class TooLarge extends Error {}

/** Gunzips with a cap on the output: a tile that inflates without end is refused, not buffered. */
function gunzipCapped(data: Uint8Array): Uint8Array | "corrupt" | "too large" {
  const parts: Uint8Array[] = [];
  let total = 0;
  const inflater = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > MAX_TILE_BYTES) throw new TooLarge();
    parts.push(chunk);
  });
  try {
    inflater.push(data, true);
  } catch (err) {
    return err instanceof TooLarge ? "too large" : "corrupt";
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads a protobuf varint at `pos`; returns [value, next position] or null when malformed. */
function varint(buf: Uint8Array, pos: number): [number, number] | null {
  let value = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    if (pos >= buf.length) return null;
    const byte = buf[pos++]!;
    if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
  }
  return null;
}

/**
 * Walks one protobuf message; `expect(field, wireType)` says whether a field is allowed and returns the
 * checker for its embedded message (or true for an accepted scalar/bytes field). Returns an error or null.
 */
type FieldRule = (field: number, wire: number, body: Uint8Array | null) => string | null;
function walk(buf: Uint8Array, rule: FieldRule): string | null {
  let pos = 0;
  while (pos < buf.length) {
    const tag = varint(buf, pos);
    if (!tag) return "truncated field tag";
    pos = tag[1];
    const field = Math.floor(tag[0] / 8);
    const wire = tag[0] & 7;
    let body: Uint8Array | null = null;
    if (wire === 0) {
      const v = varint(buf, pos);
      if (!v) return "truncated varint";
      pos = v[1];
    } else if (wire === 2) {
      const len = varint(buf, pos);
      if (!len || len[1] + len[0] > buf.length) return "a length runs past the end of the data";
      body = buf.subarray(len[1], len[1] + len[0]);
      pos = len[1] + len[0];
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) return "truncated fixed-size field";
    } else return `wire type ${wire} is not used by vector tiles`;
    const problem = rule(field, wire, body);
    if (problem) return problem;
  }
  return null;
}

// Mapbox Vector Tile 2.1: Tile { repeated Layer layers = 3 } ; Layer { version 15, name 1, features 2,
// keys 3, values 4, extent 5 } ; Feature { id 1, tags 2, type 3, geometry 4 } ; Value { 1..7 }.
const featureRule: FieldRule = (f, w) => ((f === 1 || f === 3) && w === 0) || ((f === 2 || f === 4) && w === 2) ? null : `unexpected feature field ${f}`;
const valueRule: FieldRule = (f, w) => (f >= 1 && f <= 7 && w !== 3 && w !== 4 ? null : `unexpected value field ${f}`);
const layerRule: FieldRule = (f, w, body) => {
  if ((f === 15 || f === 5) && w === 0) return null;
  if ((f === 1 || f === 3) && w === 2) return null;
  if (f === 2 && w === 2) return walk(body!, featureRule);
  if (f === 4 && w === 2) return walk(body!, valueRule);
  return `unexpected layer field ${f}`;
};
const tileRule: FieldRule = (f, w, body) => (f === 3 && w === 2 ? walk(body!, layerRule) : `field ${f} is not a vector tile layer`);

/** null when `data` is plausibly a tile of `format`, else what is wrong with it. */
export function tileProblem(data: Uint8Array, format: TileFormat): string | null {
  switch (format) {
    case "png":
      return startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) ? null : "not a PNG image";
    case "jpg":
      return startsWith(data, [0xff, 0xd8, 0xff]) ? null : "not a JPEG image";
    case "webp":
      return startsWith(data, [0x52, 0x49, 0x46, 0x46]) && startsWith(data, [0x57, 0x45, 0x42, 0x50], 8) ? null : "not a WebP image";
    case "pbf": {
      let raw = data;
      if (isGzip(data)) {
        const inflated = gunzipCapped(data);
        if (inflated === "corrupt") return "gzip data that does not decompress";
        if (inflated === "too large") return "decompresses to more than 32 MiB";
        raw = inflated;
      }
      if (raw.length === 0) return null;
      const problem = walk(raw, tileRule);
      return problem ? `not a Mapbox Vector Tile (${problem})` : null;
    }
  }
}

/** Where in each zoom level's tiles to look: both ends, and spread between them. */
export const SAMPLE_POINTS = [0, 0.25, 0.5, 0.75, 1];

/** A tile read to be checked, named as map clients name it (XYZ). */
export interface SampledTile {
  z: number;
  x: number;
  y: number;
  data: Uint8Array;
}

/**
 * What is wrong with a tile stored under a declared tile compression (PMTiles headers declare one; the
 * tile is served with or without Content-Encoding: gzip by it, so bytes that disagree reach no client
 * intact). Images stored gzipped are checked after a capped gunzip.
 */
function storedTileProblem(data: Uint8Array, format: TileFormat, compression: "gzip" | "none"): string | null {
  if (compression === "none") return isGzip(data) ? "gzip data, though the archive declares no tile compression" : tileProblem(data, format);
  if (!isGzip(data)) return "not gzip data, though the archive declares gzip tile compression";
  if (format === "pbf") return tileProblem(data, format);
  const inflated = gunzipCapped(data);
  if (inflated === "corrupt") return "gzip data that does not decompress";
  if (inflated === "too large") return "decompresses to more than 32 MiB";
  return tileProblem(inflated, format);
}

/**
 * Refuses an archive when any sampled tile does not hold data of its declared format, naming the tiles
 * and what is wrong. `fix` says where the archive declares its format (MBTiles metadata, a PMTiles header);
 * `compression`, where the archive declares one, must hold too (MBTiles declares none: gzip is sniffed).
 */
export function refuseBadSamples(samples: Iterable<SampledTile>, format: TileFormat, label: string, fix: string, compression?: "gzip" | "none"): void {
  let checked = 0;
  const bad: string[] = [];
  for (const t of samples) {
    if (!t.data.length) continue;
    checked++;
    const problem = compression ? storedTileProblem(t.data, format, compression) : tileProblem(t.data, format);
    if (problem) bad.push(`${t.z}/${t.x}/${t.y}: ${problem}`);
  }
  if (bad.length)
    throw new InvalidSource(
      `${label}: ${bad.length} of ${checked} sampled tiles do not hold ${format === "pbf" ? "vector tile (MVT)" : format.toUpperCase()} data as the archive declares (${bad.slice(0, 3).join("; ")}); ${fix}`,
    );
}
