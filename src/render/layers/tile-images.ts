// Per-tile images (raster tiles decoded, hillshade and color-relief computed from raster-DEM tiles), drawn
// where the tiles lie.
import type { LayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { prop } from "../style-eval";
import { invert, worldToScreen, type Camera, type TileId } from "../view";

/** The layer's `resampling`: how tiles are magnified, smoothly or each pixel as a square. */
export type Resampling = "linear" | "nearest";

/**
 * A raster, hillshade or color-relief layer's `resampling` paint property; a raster layer without it
 * takes the older `raster-resampling`, as MapLibre 5 does.
 */
export function resamplingOf(layer: LayerSpecification, zoom: number): Resampling {
  const name = layer.type === "raster" && (layer.paint as { resampling?: unknown } | undefined)?.resampling === undefined ? "raster-resampling" : "resampling";
  return prop(layer, "paint", name, zoom) === "nearest" ? "nearest" : "linear";
}

export interface TileImage {
  id: TileId;
  /** width and height in pixels */
  size: number;
  /** straight-alpha RGBA, size x size */
  rgba: Uint8Array;
}

/**
 * Draws translucent tile images as one layer: the tiles of each zoom joined into one image, sampled here
 * (bilinear, as a GPU samples a texture) into one image of the view's own pixels, laid on at the layer's
 * place in the drawing order (compose.ts). Drawn tile by tile as SVG images they left seams (with the
 * raster seam overlap a darker hairline where two overlap, without it a lighter one), and hiding those
 * under an SVG mask cost resvg about 100 ms a tile; even one joined image placed with the map's
 * transform cost it 65 ms for a 512x512 view, filtering every pixel of the image's whole extent, most of
 * it off screen, and a view-sized PNG still 20 ms to encode, decode and draw.
 */
export function drawTileImages(ctx: DrawContext, images: TileImage[], resampling: Resampling = "linear", opacity = 1): void {
  if (!images.length) return;
  const groups = new Map<string, TileImage[]>();
  for (const image of images) {
    const key = `${image.id.z}/${image.size}`;
    const group = groups.get(key);
    if (group) group.push(image);
    else groups.set(key, [image]);
  }
  // the render's pixels: the view at its pixel ratio, as resvg draws the body
  const { width, height, pixelRatio } = ctx.cam.view;
  const screenWidth = Math.round(width * pixelRatio);
  const screenHeight = Math.round(height * pixelRatio);
  // premultiplied 8-bit RGBA; a clamped array rounds and clamps each value as it is stored
  const screen = { width: screenWidth, height: screenHeight, data: new Uint8ClampedArray(screenWidth * screenHeight * 4) };
  for (const group of groups.values()) sampleOnto(screen, ctx.cam, mosaic(withinBudget(group)), resampling, opacity);
  ctx.svg.image(new Uint8Array(screen.data.buffer));
}

/**
 * A joined image of at most this many pixels (64 MiB of RGBA). Tiles of 2048 px (a raster @2x tileset)
 * or 4096 px (an imported DEM) over a large view would join into gigabytes; they are halved until they
 * fit, which a view that shows each tile pixel smaller than a screen pixel does not miss.
 */
const MAX_MOSAIC_PIXELS = 16 * 1024 * 1024;

/** The group's tiles, each halved (2x2 pixels averaged) as often as the joined image needs to fit. */
function withinBudget(tiles: TileImage[]): TileImage[] {
  let out = tiles;
  while (out.length * out[0]!.size * out[0]!.size > MAX_MOSAIC_PIXELS && out[0]!.size > 1) out = out.map(halve);
  return out;
}

function halve(tile: TileImage): TileImage {
  const size = tile.size >> 1;
  const src = tile.rgba;
  const rgba = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++)
      for (let k = 0; k < 4; k++) {
        const i = (y * 2 * tile.size + x * 2) * 4 + k;
        rgba[(y * size + x) * 4 + k] = (src[i]! + src[i + 4]! + src[i + tile.size * 4]! + src[i + tile.size * 4 + 4]! + 2) >> 2;
      }
  return { id: tile.id, size, rgba };
}

interface Mosaic {
  z: number;
  /** tile size in pixels */
  size: number;
  /** the top-left tile's column (unwrapped, so world copies join) and row */
  left: number;
  top: number;
  width: number;
  height: number;
  /** straight-alpha RGBA, transparent where no tile is */
  data: Uint8Array;
}

/** The tiles of one zoom and size as one image over the rectangle they span. */
function mosaic(tiles: TileImage[]): Mosaic {
  const { z } = tiles[0]!.id;
  const size = tiles[0]!.size;
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const { id } of tiles) {
    minX = Math.min(minX, id.wrappedX);
    maxX = Math.max(maxX, id.wrappedX);
    minY = Math.min(minY, id.y);
    maxY = Math.max(maxY, id.y);
  }
  const width = (maxX - minX + 1) * size;
  const height = (maxY - minY + 1) * size;
  const data = new Uint8Array(width * height * 4);
  for (const { id, rgba } of tiles) {
    const left = (id.wrappedX - minX) * size;
    const top = (id.y - minY) * size;
    for (let y = 0; y < size; y++) data.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), ((top + y) * width + left) * 4);
  }
  return { z, size, left: minX, top: minY, width, height, data };
}

/**
 * Samples the mosaic at every screen pixel's centre (bilinear on premultiplied colour, or the nearest
 * texel, edges clamped, as a GPU samples a texture) and lays it over `screen` (premultiplied 8-bit).
 */
function sampleOnto(screen: { width: number; height: number; data: Uint8ClampedArray }, cam: Camera, m: Mosaic, resampling: Resampling, opacity: number): void {
  const tileWorld = cam.worldSize / 2 ** m.z;
  // screen CSS px -> mosaic px
  const inv = invert(worldToScreen(cam, m.left * tileWorld, m.top * tileWorld, tileWorld / m.size));
  const ratio = screen.width / cam.view.width;
  const { width: mw, height: mh, data: src } = m;
  const out = screen.data;
  const nearest = resampling === "nearest";
  for (let py = 0; py < screen.height; py++) {
    const sy = (py + 0.5) / ratio;
    for (let px = 0; px < screen.width; px++) {
      const sx = (px + 0.5) / ratio;
      // texel centres sit at half pixels
      const u = inv.a * sx + inv.c * sy + inv.e - 0.5;
      const v = inv.b * sx + inv.d * sy + inv.f - 0.5;
      if (u < -0.5 || v < -0.5 || u > mw - 0.5 || v > mh - 0.5) continue;
      let x0 = Math.floor(u);
      let y0 = Math.floor(v);
      let fx = u - x0;
      let fy = v - y0;
      if (nearest) {
        // the texel whose square holds the point: all weight on one tap
        if (fx >= 0.5) x0 += 1;
        if (fy >= 0.5) y0 += 1;
        fx = 0;
        fy = 0;
      }
      const xa = x0 < 0 ? 0 : x0;
      const xb = x0 + 1 >= mw ? mw - 1 : x0 + 1;
      const ya = y0 < 0 ? 0 : y0;
      const yb = y0 + 1 >= mh ? mh - 1 : y0 + 1;
      const i00 = (ya * mw + xa) * 4, i10 = (ya * mw + xb) * 4, i01 = (yb * mw + xa) * 4, i11 = (yb * mw + xb) * 4;
      // each tap's weight times its alpha (0..1) and the layer's opacity: premultiplying on the fly
      const w00 = (1 - fx) * (1 - fy) * (src[i00 + 3]! / 255) * opacity;
      const w10 = fx * (1 - fy) * (src[i10 + 3]! / 255) * opacity;
      const w01 = (1 - fx) * fy * (src[i01 + 3]! / 255) * opacity;
      const w11 = fx * fy * (src[i11 + 3]! / 255) * opacity;
      const a = w00 + w10 + w01 + w11;
      if (a <= 0) continue;
      const o = (py * screen.width + px) * 4;
      const keep = 1 - a;
      out[o] = src[i00]! * w00 + src[i10]! * w10 + src[i01]! * w01 + src[i11]! * w11 + out[o]! * keep;
      out[o + 1] = src[i00 + 1]! * w00 + src[i10 + 1]! * w10 + src[i01 + 1]! * w01 + src[i11 + 1]! * w11 + out[o + 1]! * keep;
      out[o + 2] = src[i00 + 2]! * w00 + src[i10 + 2]! * w10 + src[i01 + 2]! * w01 + src[i11 + 2]! * w11 + out[o + 2]! * keep;
      out[o + 3] = a * 255 + out[o + 3]! * keep;
    }
  }
}
