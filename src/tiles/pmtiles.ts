// PMTiles v3 archives served straight from the file: the `pmtiles` package reads the header and
// directories through a Source over Bun.file slices; tiles come back as stored (gzip or plain).
import { Compression, PMTiles, SharedPromiseCache, TileType, findTile, zxyToTileId, type Header, type RangeResponse, type Source } from "pmtiles";
import { statSync } from "node:fs";
import { cleanBounds, tileStatsFrom, vectorLayersFrom, type TileFacts, type TileFormat, type TileSource, type VectorLayer } from "./source";
import { InvalidSource } from "./errors";
import { isDemEncoding } from "./dem/encoding";
import { samplePmtiles } from "./pmtiles-samples";
import { refuseBadSamples, type SampledTile } from "./tile-check";

/** pmtiles' Source interface over a local file. */
export class LocalFileSource implements Source {
  private readonly file: ReturnType<typeof Bun.file>;
  constructor(private readonly path: string) {
    this.file = Bun.file(path);
  }
  getKey(): string {
    return this.path;
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    // Short reads at the end of the file are normal: the header read asks for 16 KiB up front.
    return { data: await this.file.slice(offset, offset + length).arrayBuffer() };
  }
}

async function decompress(buf: ArrayBuffer, compression: Compression): Promise<ArrayBuffer> {
  if (compression === Compression.None || compression === Compression.Unknown) return buf;
  if (compression === Compression.Gzip) {
    const out = Bun.gunzipSync(new Uint8Array(buf));
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
  throw new InvalidSource(`PMTiles internal compression ${Compression[compression]} is not supported; re-create the archive with gzip`);
}

const TYPES: Partial<Record<TileType, TileFormat>> = { [TileType.Mvt]: "pbf", [TileType.Png]: "png", [TileType.Jpeg]: "jpg", [TileType.Webp]: "webp" };

function factsOf(header: Header, metadata: Record<string, unknown>): TileFacts {
  const format = TYPES[header.tileType];
  if (!format) throw new InvalidSource(`PMTiles tile type ${TileType[header.tileType] ?? header.tileType} is not supported; use MVT, PNG, JPEG or WebP`);
  const bounds = cleanBounds([header.minLon, header.minLat, header.maxLon, header.maxLat]);
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    format,
    minzoom: header.minZoom,
    maxzoom: header.maxZoom,
    bounds,
    center: [header.centerLon, header.centerLat, Math.max(header.minZoom, Math.min(header.maxZoom, header.centerZoom))],
    vector_layers: vectorLayersFrom(metadata.vector_layers),
    tilestats: format === "pbf" ? tileStatsFrom(metadata.tilestats) : undefined,
    encoding: isDemEncoding(metadata.encoding) ? metadata.encoding : undefined,
    attribution: str(metadata.attribution),
    name: str(metadata.name),
    description: str(metadata.description),
  };
}

export async function openPmtiles(path: string, facts: TileFacts): Promise<TileSource> {
  const source = new LocalFileSource(path);
  const cache = new SharedPromiseCache(200, false, decompress);
  const header = await cache.getHeader(source);
  const encoding = header.tileCompression === Compression.Gzip ? "gzip" : "identity";
  return {
    facts,
    // The directory walk of PMTiles.getZxy, without its decompression of tile data: stored bytes pass through.
    async getTile(z, x, y) {
      if (z < header.minZoom || z > header.maxZoom || z > 26) return null;
      const id = zxyToTileId(z, x, y);
      let offset = header.rootDirectoryOffset;
      let length = header.rootDirectoryLength;
      for (let depth = 0; depth <= 3; depth++) {
        const entry = findTile(await cache.getDirectory(source, offset, length, header), id);
        if (!entry) return null;
        if (entry.runLength > 0) {
          const r = await source.getBytes(header.tileDataOffset + entry.offset, entry.length);
          return { data: new Uint8Array(r.data), encoding };
        }
        offset = header.leafDirectoryOffset + entry.offset;
        length = entry.length;
      }
      return null;
    },
    close() {},
  };
}

/**
 * The header's tile type and compression decide how every tile is served (image/png, Content-Encoding:
 * gzip): a sample of tiles from every zoom must hold what it declares, as MBTiles tiles must hold their
 * metadata's format.
 */
async function checkSampledTiles(path: string, header: Header, format: TileFormat, label: string): Promise<void> {
  const source = new LocalFileSource(path);
  const cache = new SharedPromiseCache(50, false, decompress);
  let samples: SampledTile[];
  try {
    samples = await samplePmtiles(
      (offset, length) => cache.getDirectory(source, offset, length, header),
      { rootOffset: header.rootDirectoryOffset, rootLength: header.rootDirectoryLength, leafOffset: header.leafDirectoryOffset, minzoom: header.minZoom, maxzoom: header.maxZoom },
      async (entry) => new Uint8Array((await source.getBytes(header.tileDataOffset + entry.offset, entry.length)).data),
    );
  } catch (err) {
    throw new InvalidSource(`${label}: the PMTiles archive is damaged: ${(err as Error).message}`);
  }
  const compression = header.tileCompression === Compression.Gzip ? "gzip" : "none";
  refuseBadSamples(samples, format, label, "fix the archive's tiles or the tile type and compression in its header", compression);
}

/** Validates a PMTiles file (magic, version, sizes, directories, metadata) and reads its facts. */
export async function inspectPmtiles(path: string, label: string): Promise<{ facts: TileFacts; warnings: string[]; tiles: number }> {
  const size = statSync(path).size;
  const head = new Uint8Array(await Bun.file(path).slice(0, 127).arrayBuffer());
  if (head.length < 127 || new TextDecoder().decode(head.subarray(0, 7)) !== "PMTiles") throw new InvalidSource(`${label}: not a PMTiles file, or shorter than its 127-byte header`);
  if (head[7] !== 3) throw new InvalidSource(`${label}: PMTiles spec version ${head[7]} is not supported; convert it to v3 (pmtiles convert)`);
  const archive = new PMTiles(new LocalFileSource(path), new SharedPromiseCache(50), decompress);
  let header: Header;
  let metadata: Record<string, unknown>;
  try {
    header = await archive.getHeader();
    const ends = [
      header.rootDirectoryOffset + header.rootDirectoryLength,
      header.jsonMetadataOffset + header.jsonMetadataLength,
      header.leafDirectoryOffset + (header.leafDirectoryLength ?? 0),
      header.tileDataOffset + (header.tileDataLength ?? 0),
    ];
    const end = Math.max(...ends);
    if (end > size) throw new InvalidSource(`${label}: the PMTiles header describes ${end} bytes but the file has ${size}: it is truncated; upload it again`);
    if (header.tileCompression !== Compression.Gzip && header.tileCompression !== Compression.None)
      throw new InvalidSource(`${label}: tile compression ${Compression[header.tileCompression]} is not supported; re-create the archive with gzip or no tile compression`);
    metadata = ((await archive.getMetadata()) ?? {}) as Record<string, unknown>;
    if (typeof metadata !== "object" || Array.isArray(metadata)) metadata = {};
    // Reading one tile walks the root (and a leaf) directory, proving they decode.
    await (await openPmtiles(path, { format: "pbf", minzoom: 0, maxzoom: 0, bounds: [-180, -85, 180, 85], center: [0, 0, 0], vector_layers: [] })).getTile(header.minZoom, 0, 0);
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: the PMTiles archive is damaged: ${(err as Error).message}`);
  }
  const facts = factsOf(header, metadata);
  if (facts.minzoom > facts.maxzoom || facts.maxzoom > 30) throw new InvalidSource(`${label}: zoom range ${facts.minzoom}-${facts.maxzoom} is invalid`);
  await checkSampledTiles(path, header, facts.format, label);
  const warnings: string[] = [];
  if (facts.format === "pbf" && !facts.vector_layers.length) warnings.push(`${label}: metadata lists no vector_layers; styles must know the layer names themselves`);
  return { facts, warnings, tiles: header.numAddressedTiles };
}
