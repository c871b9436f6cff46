// Vector tiles decoded once and kept across renders: a worker draws view after view over the same few
// tiles, and decoding a tile (its property strings, its geometry) cost more than drawing it. Keyed by
// the tile's bytes (their length and hash), so a republished tileset can never be served stale.
import { VectorTile, type VectorTileFeature, type VectorTileLayer } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { Lru } from "../lru";
import type { Ring } from "./geometry";
import { contentHash } from "./content-hash";

export interface DecodedFeature {
  type: 1 | 2 | 3;
  id: number | undefined;
  properties: Record<string, unknown>;
  /** raw tile coordinates, decoded on first use and kept (callers never modify them) */
  rings(): Ring[];
}

export interface DecodedLayer {
  extent: number;
  features: DecodedFeature[];
}

/** A tile's source layers, each decoded when first asked for (styles rarely draw every layer). */
export interface DecodedTile {
  layer(name: string): DecodedLayer | undefined;
}

/** Decoded objects take several times the bytes of their PBF; this bounds each worker's share. */
const DECODED_CACHE_BYTES = 64 * 1024 * 1024;
const DECODED_PER_PBF_BYTE = 8;
const decoded = new Lru<DecodedTile>({ maxBytes: DECODED_CACHE_BYTES });

/** The decoded tile; throws on a corrupt tile. */
export function decodeTile(bytes: Uint8Array): DecodedTile {
  const key = `${bytes.length}:${contentHash(bytes)}`;
  let tile = decoded.get(key);
  if (!tile) {
    tile = decode(bytes);
    decoded.set(key, tile, bytes.length * DECODED_PER_PBF_BYTE);
  }
  return tile;
}

function decode(bytes: Uint8Array): DecodedTile {
  const tile = new VectorTile(new PbfReader(bytes));
  const layers = new Map<string, DecodedLayer | undefined>();
  return {
    layer(name) {
      if (!layers.has(name)) layers.set(name, Object.hasOwn(tile.layers, name) ? decodeLayer(tile.layers[name]!) : undefined);
      return layers.get(name);
    },
  };
}

/** The layer's features; a corrupt layer draws as empty, as in MapLibre. */
function decodeLayer(layer: VectorTileLayer): DecodedLayer | undefined {
  const features: DecodedFeature[] = [];
  try {
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i);
      if (f.type === 0) continue;
      features.push({ type: f.type, id: f.id, properties: f.properties, rings: lazyRings(f) });
    }
  } catch {
    return undefined;
  }
  return { extent: layer.extent, features };
}

function lazyRings(f: VectorTileFeature): () => Ring[] {
  let rings: Ring[] | undefined;
  return () => {
    if (rings) return rings;
    try {
      rings = f.loadGeometry().map((ring) => ring.flatMap((p) => [p.x, p.y]));
    } catch {
      rings = []; // corrupt geometry draws nothing
    }
    return rings;
  };
}
