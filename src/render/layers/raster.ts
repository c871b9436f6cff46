// raster: the source's tiles placed (scaled, rotated) in the view, with raster-opacity, resampling and
// MapLibre's colour adjustments (hue-rotate, saturation, contrast, brightness).
import type { RasterLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { num } from "../style-eval";
import { dataUri, matrix, n } from "../svg";
import { worldToScreen, type Camera, type TileId } from "../view";
import { applyRasterColour, rasterColour } from "../raster-colour";
import { drawTileImages, resamplingOf } from "./tile-images";

/** Tiles drawn this much larger (CSS px) so anti-aliased edges of neighbours do not leave hairline seams. */
const SEAM_OVERLAP_PX = 0.5;

export function drawRaster(layer: RasterLayerSpecification, ctx: DrawContext): void {
  const { cam, zoom } = ctx;
  const opacity = num(layer, "paint", "raster-opacity", zoom);
  if (opacity <= 0) return;
  const resampling = resamplingOf(layer, zoom);
  const tiles = ctx.rasterTiles(layer.source);
  if (!tiles.length) return;
  const colour = rasterColour(
    num(layer, "paint", "raster-hue-rotate", zoom),
    num(layer, "paint", "raster-saturation", zoom),
    num(layer, "paint", "raster-contrast", zoom),
    num(layer, "paint", "raster-brightness-min", zoom),
    num(layer, "paint", "raster-brightness-max", zoom),
  );
  // Decoded tiles are sampled into the view's pixels here, seamless and without resvg filtering their
  // whole extent; a tile this renderer cannot decode leaves the layer to resvg, unadjusted.
  if (tiles.every((t) => t.pixels !== null)) {
    const images = tiles.map(({ id, pixels }) => ({ id, size: pixels!.width, rgba: colour ? applyRasterColour(pixels!.data, colour) : pixels!.data }));
    drawTileImages(ctx, images, resampling, opacity);
    return;
  }
  const parts = tiles.map(({ id, bytes }) => tileImage(cam, id, bytes));
  ctx.svg.body.push(`<g opacity="${opacity}"${resampling === "nearest" ? ' image-rendering="optimizeSpeed"' : ""}>${parts.join("")}</g>`);
}

/** An image (PNG, JPEG or WebP bytes) covering tile `id` of the view, scaled and rotated with the map. */
function tileImage(cam: Camera, id: TileId, bytes: Uint8Array): string {
  const tileWorld = cam.worldSize / 2 ** id.z;
  const m = worldToScreen(cam, id.wrappedX * tileWorld, id.y * tileWorld, 1);
  const size = tileWorld + SEAM_OVERLAP_PX;
  return (
    `<image x="${-SEAM_OVERLAP_PX / 2}" y="${-SEAM_OVERLAP_PX / 2}" width="${n(size)}" height="${n(size)}" preserveAspectRatio="none" ` +
    `transform="${matrix(m)}" xlink:href="${dataUri(bytes)}"/>`
  );
}
