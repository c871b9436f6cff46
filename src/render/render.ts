// renderMap: style + view + resources -> PNG. Loads what the visible layers need (tiles, DEM tiles, geojson, sprite,
// fonts), places labels, paints every layer in style order into one SVG (upright text as glyph runs
// beside it) and composes the pixels with resvg and cached glyph masks.
import type { LayerSpecification, StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { RgbaImage } from "../sprites/png";
import { resvgReady } from "../sprites/rasterize";
import { composeImage } from "./compose";
import { loadDemTiles, type LoadedDemTile } from "./dem-tiles";
import { decodeRasterTile } from "./raster-pixels";
import type { DrawContext, RasterTile } from "./draw-context";
import type { RenderFeature } from "./features";
import { geojsonFeatures } from "./geojson";
import { encodeRenderPng } from "./png";
import { drawBackground } from "./layers/background";
import { drawCircle } from "./layers/circle";
import { drawColorRelief } from "./layers/color-relief";
import { drawFill } from "./layers/fill";
import { drawFillExtrusion } from "./layers/fill-extrusion";
import { drawHeatmap } from "./layers/heatmap";
import { drawHillshade } from "./layers/hillshade";
import { drawLine } from "./layers/line";
import { drawRaster } from "./layers/raster";
import { drawSymbols, placeSymbols } from "./layers/symbol";
import { SpriteImages } from "./sprite";
import { textFieldHasImages } from "./symbol-layout";
import { SvgDocument } from "./svg";
import { FontBook } from "./text";
import { withTranslate } from "./translate";
import { loadVectorTiles, tileFeatures, type LoadedTile } from "./tiles";
import type { RenderOptions, RenderResources, RenderView } from "./types";
import { camera, coveringTiles } from "./view";
import { featureConstant, layerVisible, prop } from "./style-eval";

export class RenderInputError extends Error {}
export class RenderAborted extends Error {}

/** Lowest zoom the renderer draws, MapLibre's own minimum (a 256-px raster tile at zoom 0 is zoom -1). */
export const MIN_RENDER_ZOOM = -2;

/** Largest image side in device pixels the renderer accepts (the service enforces its own, smaller limits). */
export const MAX_RENDER_PX = 4096;

export async function renderMap(
  style: StyleSpecification,
  view: RenderView,
  res: RenderResources,
  options: RenderOptions = {},
): Promise<Uint8Array> {
  return encodeRenderPng(await renderImage(style, view, res, options));
}

/** The render as straight-alpha RGBA pixels (for encoders of other formats). */
export async function renderImage(
  style: StyleSpecification,
  view: RenderView,
  res: RenderResources,
  options: RenderOptions = {},
): Promise<RgbaImage> {
  const svg = await renderSvg(style, view, res, options);
  await resvgReady();
  checkAborted(options);
  return composeImage(svg, view.pixelRatio);
}

/** The SVG of a render (exported for tests and debugging). */
export async function renderSvg(
  style: StyleSpecification,
  view: RenderView,
  res: RenderResources,
  options: RenderOptions = {},
): Promise<SvgDocument> {
  checkView(view);
  const cam = camera(view);
  const zoom = view.zoom;
  const layers = (style.layers ?? []).filter((l) => layerVisible(l, zoom));
  const svg = new SvgDocument(view.width, view.height);

  // the sprite and fonts are asked for alongside the tiles rather than one round trip after another
  const fonts = new FontBook(res);
  const fontsPrefetched = prefetchFonts(layers, zoom, fonts);
  const spriteLoaded = layers.some(usesSprite) ? res.sprite(view.pixelRatio).catch(() => null) : Promise.resolve(null);
  const vectorTiles = new Map<string, LoadedTile[]>();
  const rasterTiles = new Map<string, RasterTile[]>();
  const demTiles = new Map<string, LoadedDemTile[]>();
  const sourceIds = new Set(layers.map((l) => (l as { source?: string }).source).filter((s): s is string => !!s));
  await Promise.all(
    [...sourceIds].map(async (sourceId) => {
      const info = res.sourceInfo(sourceId);
      if (info?.type === "vector") vectorTiles.set(sourceId, await loadVectorTiles(cam, sourceId, res));
      if (info?.type === "raster") rasterTiles.set(sourceId, await loadRasterTiles(cam, sourceId, res, info));
      if (info?.type === "raster-dem") demTiles.set(sourceId, await loadDemTiles(cam, sourceId, res, info));
    }),
  );
  checkAborted(options);

  const sprite = new SpriteImages(svg, await spriteLoaded);

  const featureCache = new Map<string, RenderFeature[]>();
  const ctx: DrawContext = {
    cam,
    zoom,
    svg,
    sprite,
    rasterTiles: (sourceId) => rasterTiles.get(sourceId) ?? [],
    demTiles: (sourceId) => demTiles.get(sourceId) ?? [],
    features(layer) {
      const sourceId = (layer as { source?: string }).source ?? "";
      const sourceLayer = (layer as { "source-layer"?: string })["source-layer"] ?? "";
      const key = `${sourceId}\u0000${sourceLayer}`;
      let features = featureCache.get(key);
      if (!features) {
        const info = res.sourceInfo(sourceId);
        if (info?.type === "vector") features = tileFeatures(cam, vectorTiles.get(sourceId) ?? [], sourceLayer);
        else if (info?.type === "geojson") features = geojsonFeatures(cam, res.geojson(sourceId));
        else features = [];
        featureCache.set(key, features);
      }
      return features;
    },
  };

  await fontsPrefetched;
  const placed = await placeSymbols(layers, ctx, fonts, () => checkAborted(options));
  for (const layer of layers) {
    checkAborted(options);
    withTranslate(layer, ctx, () => drawLayer(layer, ctx, placed));
  }
  return svg;
}

function drawLayer(layer: LayerSpecification, ctx: DrawContext, placed: Awaited<ReturnType<typeof placeSymbols>>): void {
  switch (layer.type) {
    case "background":
      return drawBackground(layer, ctx);
    case "fill":
      return drawFill(layer, ctx);
    case "line":
      return drawLine(layer, ctx);
    case "circle":
      return drawCircle(layer, ctx);
    case "raster":
      return drawRaster(layer, ctx);
    case "symbol":
      return drawSymbols(layer, ctx, placed);
    case "fill-extrusion":
      return drawFillExtrusion(layer, ctx);
    case "hillshade":
      return drawHillshade(layer, ctx);
    case "color-relief":
      return drawColorRelief(layer, ctx);
    case "heatmap":
      return drawHeatmap(layer, ctx);
    default:
      // every layer type of the style spec is drawn above; a type it does not know draws nothing
      return;
  }
}

async function loadRasterTiles(
  cam: ReturnType<typeof camera>,
  sourceId: string,
  res: RenderResources,
  info: NonNullable<ReturnType<RenderResources["sourceInfo"]>>,
): Promise<RasterTile[]> {
  const ids = coveringTiles(cam, info, true);
  const tiles = await Promise.all(
    ids.map(async (id) => {
      const bytes = await res.tile(sourceId, id.z, id.x, id.y);
      return bytes && bytes.length > 0 ? { id, bytes, pixels: await decodeRasterTile(bytes) } : null;
    }),
  );
  return tiles.filter((t): t is RasterTile => t !== null);
}

/**
 * Asks for the fonts of every symbol layer with a fixed text-font while the tiles load, instead of one
 * round trip per font once placement reaches its layer (FontBook keeps them for placement).
 */
function prefetchFonts(layers: LayerSpecification[], zoom: number, fonts: FontBook): Promise<unknown> {
  const stacks = layers
    .filter((l) => l.type === "symbol" && l.layout?.["text-field"] !== undefined && featureConstant(l, "layout", "text-font"))
    .map((l) => prop(l, "layout", "text-font", zoom))
    .filter((names): names is unknown[] => Array.isArray(names));
  return Promise.all(stacks.map((names) => fonts.stack(names.map(String))));
}

function usesSprite(layer: LayerSpecification): boolean {
  const paint = (layer.paint ?? {}) as Record<string, unknown>;
  const layout = (layer.layout ?? {}) as Record<string, unknown>;
  return paint["fill-pattern"] !== undefined || paint["background-pattern"] !== undefined || paint["line-pattern"] !== undefined || layout["icon-image"] !== undefined || (layer.type === "symbol" && textFieldHasImages(layer));
}

function checkView(view: RenderView): void {
  const { center, zoom, bearing, width, height, pixelRatio } = view;
  const bad = (what: string) => {
    throw new RenderInputError(what);
  };
  if (!Array.isArray(center) || !Number.isFinite(center[0]) || !Number.isFinite(center[1])) bad("center must be two finite numbers");
  if (!Number.isFinite(zoom) || zoom < MIN_RENDER_ZOOM || zoom > 24) bad(`zoom must be between ${MIN_RENDER_ZOOM} and 24`);
  if (!Number.isFinite(bearing)) bad("bearing must be a finite number");
  if (pixelRatio !== 1 && pixelRatio !== 2) bad("pixelRatio must be 1 or 2");
  for (const [name, v] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(v) || v < 1 || v * pixelRatio > MAX_RENDER_PX) bad(`${name} must be an integer from 1 to ${MAX_RENDER_PX / pixelRatio}`);
  }
}

function checkAborted(options: RenderOptions): void {
  if (options.signal?.aborted) throw new RenderAborted("render aborted");
}
