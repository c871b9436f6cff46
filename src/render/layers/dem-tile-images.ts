// Per-tile images computed from raster-DEM tiles (hillshade, color-relief), drawn where the tiles lie.
import type { DrawContext } from "../draw-context";
import { encodeRenderPng } from "../png";
import { dataUri, matrix, n } from "../svg";
import { worldToScreen, type Camera, type TileId } from "../view";

export interface DemTileImage {
  id: TileId;
  /** width and height in pixels */
  size: number;
  /** straight-alpha RGBA, size x size */
  rgba: Uint8Array;
}

/**
 * Draws translucent tile images as one layer: the tiles of each zoom joined into one image first. Drawn
 * one by one they leave seams: with the raster seam overlap, a darker hairline where two overlap, and
 * without it a lighter one where anti-aliased edges meet. An SVG mask over them joins them too, but costs
 * resvg about 100 ms per tile; one image per zoom has no seams to hide and is drawn as fast as one tile.
 */
export function drawDemTileImages(ctx: DrawContext, images: DemTileImage[]): void {
  if (!images.length) return;
  const groups = new Map<string, DemTileImage[]>();
  for (const image of images) {
    const key = `${image.id.z}/${image.size}`;
    const group = groups.get(key);
    if (group) group.push(image);
    else groups.set(key, [image]);
  }
  ctx.svg.body.push(`<g>${[...groups.values()].map((group) => mosaicImage(ctx.cam, group)).join("")}</g>`);
}

/** The tiles of one zoom and size as one image over the rectangle they span (transparent where none is). */
function mosaicImage(cam: Camera, tiles: DemTileImage[]): string {
  const { z } = tiles[0]!.id;
  const size = tiles[0]!.size;
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const { id } of tiles) {
    minX = Math.min(minX, id.wrappedX);
    maxX = Math.max(maxX, id.wrappedX);
    minY = Math.min(minY, id.y);
    maxY = Math.max(maxY, id.y);
  }
  const cols = maxX - minX + 1;
  const rows = maxY - minY + 1;
  const width = cols * size;
  const rgba = new Uint8Array(width * rows * size * 4);
  for (const { id, rgba: tile } of tiles) {
    const left = (id.wrappedX - minX) * size;
    const top = (id.y - minY) * size;
    for (let y = 0; y < size; y++) rgba.set(tile.subarray(y * size * 4, (y + 1) * size * 4), ((top + y) * width + left) * 4);
  }
  const tileWorld = cam.worldSize / 2 ** z;
  const m = worldToScreen(cam, minX * tileWorld, minY * tileWorld, 1);
  const png = encodeRenderPng({ width, height: rows * size, data: rgba });
  return `<image x="0" y="0" width="${n(cols * tileWorld)}" height="${n(rows * tileWorld)}" preserveAspectRatio="none" transform="${matrix(m)}" xlink:href="${dataUri(png)}"/>`;
}
