// raster: the source's tiles as images placed (scaled, rotated) in the view, with raster-opacity.
import type { RasterLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { num, prop } from "../style-eval";
import { dataUri, matrix, n } from "../svg";
import { worldToScreen, type Camera, type TileId } from "../view";

/** Tiles drawn this much larger (CSS px) so anti-aliased edges of neighbours do not leave hairline seams. */
const SEAM_OVERLAP_PX = 0.5;

export function drawRaster(layer: RasterLayerSpecification, ctx: DrawContext): void {
  const { cam, zoom } = ctx;
  const opacity = num(layer, "paint", "raster-opacity", zoom);
  if (opacity <= 0) return;
  // `resampling` (MapLibre 5 and later) over the older `raster-resampling` when both are set
  const nearest = prop(layer, "paint", layer.paint?.resampling !== undefined ? "resampling" : "raster-resampling", zoom) === "nearest";
  const parts = ctx.rasterTiles(layer.source).map(({ id, bytes }) => tileImage(cam, id, bytes));
  if (!parts.length) return;
  ctx.svg.body.push(`<g opacity="${opacity}"${nearest ? ' image-rendering="optimizeSpeed"' : ""}>${parts.join("")}</g>`);
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
