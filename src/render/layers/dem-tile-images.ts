// Per-tile images computed from raster-DEM tiles (hillshade, color-relief), drawn where the tiles lie.
import type { DrawContext } from "../draw-context";
import { encodeRenderPng } from "../png";
import type { TileId } from "../view";
import { tileImage } from "./raster";

export interface DemTileImage {
  id: TileId;
  /** width and height in pixels */
  size: number;
  /** straight-alpha RGBA, size x size */
  rgba: Uint8Array;
}

/**
 * Draws translucent tile images as one layer. Drawn with the raster seam overlap they would darken a
 * hairline where two overlap (and without it, lighten one): opaque colour tiles under a mask of opaque
 * grey tiles (grey = alpha) join as raster tiles do.
 */
export function drawDemTileImages(ctx: DrawContext, images: DemTileImage[]): void {
  if (!images.length) return;
  const colours: string[] = [];
  const alphas: string[] = [];
  for (const { id, size, rgba } of images) {
    const { colour, alpha } = splitAlpha(rgba);
    colours.push(tileImage(ctx.cam, id, encodeRenderPng({ width: size, height: size, data: colour })));
    alphas.push(tileImage(ctx.cam, id, encodeRenderPng({ width: size, height: size, data: alpha })));
  }
  const mask = ctx.svg.id("m");
  const { width, height } = ctx.cam.view;
  ctx.svg.defs.push(`<mask id="${mask}" maskUnits="userSpaceOnUse" x="0" y="0" width="${width}" height="${height}">${alphas.join("")}</mask>`);
  ctx.svg.body.push(`<g mask="url(#${mask})">${colours.join("")}</g>`);
}

/** Straight-alpha RGBA as an opaque colour image and an opaque grey image of its alpha. */
function splitAlpha(rgba: Uint8Array): { colour: Uint8Array; alpha: Uint8Array } {
  const colour = new Uint8Array(rgba.length);
  const alpha = new Uint8Array(rgba.length);
  for (let o = 0; o < rgba.length; o += 4) {
    colour[o] = rgba[o]!;
    colour[o + 1] = rgba[o + 1]!;
    colour[o + 2] = rgba[o + 2]!;
    colour[o + 3] = 255;
    alpha[o] = alpha[o + 1] = alpha[o + 2] = rgba[o + 3]!;
    alpha[o + 3] = 255;
  }
  return { colour, alpha };
}
