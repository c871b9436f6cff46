// The hash the render caches key content by (decoded vector tiles, DEM heights, raster pixels, sprite
// sheets), with a seed drawn at start: wyhash is fast but not collision-resistant, and with a known seed
// one organization could craft a tile of the same length and hash as another's public tile and have
// its pixels drawn in the other's maps from a worker's cache. A secret seed makes that guesswork.
const SEED = BigInt.asUintN(64, BigInt(crypto.getRandomValues(new Uint32Array(2)).reduce((a, b) => a * 2 ** 32 + b, 0)));

export function contentHash(bytes: Uint8Array): string {
  return Bun.hash.wyhash(bytes, SEED).toString(36);
}
