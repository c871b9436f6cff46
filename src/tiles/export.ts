// `tilesets export`: any version's archive as MBTiles or PMTiles, for a CDN or another server. Same
// format: a copy; otherwise every tile is carried over as stored (gzip stays gzip) with the facts.
import { Database } from "bun:sqlite";
import { copyFileSync, renameSync, rmSync } from "node:fs";
import { Compression, SharedPromiseCache, tileIdToZxy, type Entry, type Header } from "pmtiles";
import { MbtilesWriter } from "./mbtiles";
import { LocalFileSource } from "./pmtiles";
import { PmtilesWriter } from "./pmtiles-writer";
import { isGzip, type TileFacts } from "./source";

export type ArchiveFormat = "mbtiles" | "pmtiles";

export interface ExportSource {
  path: string;
  format: ArchiveFormat;
  facts: TileFacts;
}

type Tile = { z: number; x: number; y: number; data: Uint8Array };

function* mbtilesTiles(path: string): Generator<Tile> {
  const db = new Database(path, { readonly: true });
  try {
    for (const r of db.query<{ z: number; x: number; row: number; data: Uint8Array }, []>("SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles").iterate())
      yield { z: r.z, x: r.x, y: (1 << r.z) - 1 - r.row, data: r.data };
  } finally {
    db.close();
  }
}

async function* pmtilesTiles(path: string): AsyncGenerator<Tile> {
  const source = new LocalFileSource(path);
  const cache = new SharedPromiseCache(50, false, async (buf, compression) => {
    if (compression !== Compression.Gzip) return buf;
    const out = Bun.gunzipSync(new Uint8Array(buf));
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  });
  const header: Header = await cache.getHeader(source);
  async function* walk(offset: number, length: number, depth: number): AsyncGenerator<Tile> {
    const entries: Entry[] = (await cache.getDirectory(source, offset, length, header)).slice();
    for (const e of entries) {
      if (e.runLength === 0) {
        if (depth < 3) yield* walk(header.leafDirectoryOffset + e.offset, e.length, depth + 1);
        continue;
      }
      const data = new Uint8Array((await source.getBytes(header.tileDataOffset + e.offset, e.length)).data);
      for (let i = 0; i < e.runLength; i++) {
        const [z, x, y] = tileIdToZxy(e.tileId + i);
        yield { z, x, y, data };
      }
    }
  }
  yield* walk(header.rootDirectoryOffset, header.rootDirectoryLength, 0);
}

/** Writes `src` to `out` in `format`; returns the tile count. The file appears whole or not at all. */
export async function exportArchive(src: ExportSource, out: string, format: ArchiveFormat): Promise<number> {
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    let count = -1;
    if (format === src.format) copyFileSync(src.path, tmp);
    else {
      const tiles = src.format === "mbtiles" ? mbtilesTiles(src.path) : pmtilesTiles(src.path);
      const f = src.facts;
      const writer = format === "pmtiles" ? new PmtilesWriter(tmp) : new MbtilesWriter(tmp);
      let gzip = true;
      try {
        for await (const t of tiles) {
          if (writer.count === 0) gzip = isGzip(t.data);
          writer.put(t.z, t.x, t.y, t.data);
        }
        count = writer.count;
        const meta = { name: f.name ?? "", description: f.description ?? "", attribution: f.attribution ?? "", vector_layers: f.vector_layers, ...(f.tilestats ? { tilestats: f.tilestats } : {}) };
        // A DEM's tiles are heights only with their encoding (terrarium or mapbox): without it the importer
        // takes the archive for plain PNG tiles, so the export would not import again as the DEM it is.
        const encoding: Record<string, string> = f.encoding ? { encoding: f.encoding } : {};
        if (writer instanceof PmtilesWriter)
          writer.finish({ format: f.format, gzip, minzoom: f.minzoom, maxzoom: f.maxzoom, bounds: f.bounds, center: f.center, metadata: { ...meta, type: "overlay", ...encoding } });
        else
          writer.finish({
            name: meta.name,
            description: meta.description,
            attribution: meta.attribution,
            format: f.format,
            ...encoding,
            type: "overlay",
            version: "2",
            minzoom: String(f.minzoom),
            maxzoom: String(f.maxzoom),
            bounds: f.bounds.join(","),
            center: f.center.join(","),
            ...(f.format === "pbf" ? { json: JSON.stringify({ vector_layers: f.vector_layers, ...(f.tilestats ? { tilestats: f.tilestats } : {}) }) } : {}),
          });
      } catch (err) {
        writer.abort();
        throw err;
      }
    }
    renameSync(tmp, out);
    return count;
  } finally {
    rmSync(tmp, { force: true });
  }
}
