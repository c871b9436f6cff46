// Writes PMTiles v3 archives: tiles arrive in any order and wait in a scratch SQLite file keyed by
// their Hilbert tile id; finish() then lays them out clustered (in tile id order), stores identical
// tiles once (runs of equal neighbours as one entry), and writes header, root directory, metadata,
// leaf directories and tile data. Used for recipe `output: "pmtiles"` and `tilesets export`.
import { Database, type Statement } from "bun:sqlite";
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { zxyToTileId } from "pmtiles";
import type { TileFormat } from "./source";

interface Entry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

export interface PmtilesFacts {
  /** what the tiles hold; default pbf (MVT) */
  format?: TileFormat;
  /** whether the tiles are gzipped; default true */
  gzip?: boolean;
  minzoom: number;
  maxzoom: number;
  bounds: [number, number, number, number];
  center: [number, number, number];
  /** the JSON metadata (vector_layers, name, attribution, ...) */
  metadata: Record<string, unknown>;
}

const HEADER_BYTES = 127;
const TILE_TYPES: Record<TileFormat, number> = { pbf: 1, png: 2, jpg: 3, webp: 4 };
/** Tiles up to this size are candidates for deduplication. */
const DEDUP_MAX = 2048;
/** The root directory has to fit, with the header, in the first 16 KiB a reader fetches. */
const ROOT_MAX = 16384 - HEADER_BYTES;

function varints(values: number[]): Uint8Array<ArrayBuffer> {
  const out: number[] = [];
  for (let v of values) {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  }
  return Uint8Array.from(out);
}

function serializeDirectory(entries: Entry[]): Uint8Array {
  const values: number[] = [entries.length];
  let last = 0;
  for (const e of entries) {
    values.push(e.tileId - last);
    last = e.tileId;
  }
  for (const e of entries) values.push(e.runLength);
  for (const e of entries) values.push(e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    values.push(prev && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return Bun.gzipSync(varints(values));
}

/** Root directory alone when it fits; otherwise leaves of growing size until the root does. */
function directories(entries: Entry[]): { root: Uint8Array; leaves: Uint8Array[] } {
  const whole = serializeDirectory(entries);
  if (whole.length <= ROOT_MAX) return { root: whole, leaves: [] };
  for (let size = 4096; ; size *= 2) {
    const leaves: Uint8Array[] = [];
    const rootEntries: Entry[] = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += size) {
      const chunk = entries.slice(i, i + size);
      const leaf = serializeDirectory(chunk);
      rootEntries.push({ tileId: chunk[0]!.tileId, offset, length: leaf.length, runLength: 0 });
      leaves.push(leaf);
      offset += leaf.length;
    }
    const root = serializeDirectory(rootEntries);
    if (root.length <= ROOT_MAX) return { root, leaves };
  }
}

function header(f: {
  rootLength: number;
  metadataLength: number;
  leavesLength: number;
  dataLength: number;
  addressed: number;
  entries: number;
  contents: number;
  facts: PmtilesFacts;
}): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode("PMTiles"), 0);
  out[7] = 3;
  const u64 = (at: number, v: number) => view.setBigUint64(at, BigInt(v), true);
  const rootOffset = HEADER_BYTES;
  const metadataOffset = rootOffset + f.rootLength;
  const leavesOffset = metadataOffset + f.metadataLength;
  const dataOffset = leavesOffset + f.leavesLength;
  u64(8, rootOffset);
  u64(16, f.rootLength);
  u64(24, metadataOffset);
  u64(32, f.metadataLength);
  u64(40, leavesOffset);
  u64(48, f.leavesLength);
  u64(56, dataOffset);
  u64(64, f.dataLength);
  u64(72, f.addressed);
  u64(80, f.entries);
  u64(88, f.contents);
  out[96] = 1; // clustered
  out[97] = 2; // internal compression: gzip
  out[98] = f.facts.gzip === false ? 1 : 2; // tile compression: none or gzip
  out[99] = TILE_TYPES[f.facts.format ?? "pbf"];
  out[100] = f.facts.minzoom;
  out[101] = f.facts.maxzoom;
  const e7 = (v: number) => Math.round(v * 1e7);
  const [w, s, e, n] = f.facts.bounds;
  view.setInt32(102, e7(w), true);
  view.setInt32(106, e7(s), true);
  view.setInt32(110, e7(e), true);
  view.setInt32(114, e7(n), true);
  out[118] = f.facts.center[2];
  view.setInt32(119, e7(f.facts.center[0]), true);
  view.setInt32(123, e7(f.facts.center[1]), true);
  return out;
}

export class PmtilesWriter {
  private readonly scratch: Database;
  private readonly insert: Statement;
  private pending = 0;
  count = 0;
  bytes = 0;

  /** @param path the archive to write; a scratch file `${path}.tiles` sits beside it until finish */
  constructor(readonly path: string) {
    rmSync(path, { force: true });
    rmSync(`${path}.tiles`, { force: true });
    this.scratch = new Database(`${path}.tiles`, { create: true, readwrite: true });
    this.scratch.exec("PRAGMA journal_mode = OFF");
    this.scratch.exec("PRAGMA synchronous = OFF");
    this.scratch.exec("CREATE TABLE tiles (id INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    this.insert = this.scratch.prepare("INSERT OR REPLACE INTO tiles (id, data) VALUES (?, ?)");
    this.scratch.exec("BEGIN");
  }

  /** Adds a tile as it will be stored (XYZ coordinates). */
  put(z: number, x: number, y: number, data: Uint8Array): void {
    this.insert.run(zxyToTileId(z, x, y), data);
    this.count++;
    this.bytes += data.length;
    if (++this.pending >= 2000) {
      this.scratch.exec("COMMIT");
      this.scratch.exec("BEGIN");
      this.pending = 0;
    }
  }

  /** Lays the archive out and closes it; the scratch file goes. */
  finish(facts: PmtilesFacts): void {
    this.scratch.exec("COMMIT");
    const dataPath = `${this.path}.data`;
    const dataFd = openSync(dataPath, "w");
    try {
      const entries: Entry[] = [];
      // Identical tiles (open sea, inland) are stored once. Only small tiles repeat, so only they are
      // remembered (by a 64-bit hash and their length), which keeps this map small.
      const seen = new Map<bigint, { offset: number; length: number }>();
      let offset = 0;
      let contents = 0;
      for (const row of this.scratch.query<{ id: number; data: Uint8Array }, []>("SELECT id, data FROM tiles ORDER BY id").iterate()) {
        const hash = row.data.length <= DEDUP_MAX ? BigInt(Bun.hash.xxHash64(row.data)) : null;
        const same = hash === null ? undefined : seen.get(hash);
        const reuse = same && same.length === row.data.length ? same : null;
        const last = entries[entries.length - 1];
        if (reuse && last && last.offset === reuse.offset && last.tileId + last.runLength === row.id) {
          last.runLength++;
          continue;
        }
        if (reuse) {
          entries.push({ tileId: row.id, offset: reuse.offset, length: reuse.length, runLength: 1 });
          continue;
        }
        writeSync(dataFd, row.data);
        entries.push({ tileId: row.id, offset, length: row.data.length, runLength: 1 });
        if (hash !== null) seen.set(hash, { offset, length: row.data.length });
        offset += row.data.length;
        contents++;
      }
      closeSync(dataFd);
      const { root, leaves } = directories(entries);
      const metadata = Bun.gzipSync(new TextEncoder().encode(JSON.stringify(facts.metadata)));
      const leavesLength = leaves.reduce((n, l) => n + l.length, 0);
      const addressed = entries.reduce((n, e) => n + e.runLength, 0);
      const out = openSync(this.path, "w");
      try {
        writeSync(out, header({ rootLength: root.length, metadataLength: metadata.length, leavesLength, dataLength: offset, addressed, entries: entries.length, contents, facts }));
        writeSync(out, root);
        writeSync(out, metadata);
        for (const leaf of leaves) writeSync(out, leaf);
        appendFile(out, dataPath);
      } finally {
        closeSync(out);
      }
      this.bytes = offset;
    } finally {
      this.scratch.close();
      rmSync(`${this.path}.tiles`, { force: true });
      rmSync(dataPath, { force: true });
    }
  }

  abort(): void {
    try {
      this.scratch.close();
    } catch {
      /* already closed */
    }
    for (const p of [this.path, `${this.path}.tiles`, `${this.path}.data`]) rmSync(p, { force: true });
  }
}

/** Copies a file onto an open descriptor in 4 MiB pieces. */
function appendFile(fd: number, path: string): void {
  const src = openSync(path, "r");
  const buf = new Uint8Array(4 * 1024 * 1024);
  try {
    for (;;) {
      const n = readSync(src, buf, 0, buf.length, null);
      if (n <= 0) break;
      writeSync(fd, buf.subarray(0, n));
    }
  } finally {
    closeSync(src);
  }
}
