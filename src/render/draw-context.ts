// What every layer painter receives: the camera, the SVG being built, and the features and images it may
// draw. Built once per render by render.ts.
import type { LayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { LoadedDemTile } from "./dem-tiles";
import type { RgbaImage } from "../sprites/png";
import type { RenderFeature } from "./features";
import type { SpriteImages } from "./sprite";
import type { SvgDocument } from "./svg";
import type { Camera, TileId } from "./view";

export interface RasterTile {
  id: TileId;
  bytes: Uint8Array;
  /** the tile decoded (raster-pixels.ts), or null where it could not be */
  pixels: RgbaImage | null;
}

export interface DrawContext {
  cam: Camera;
  zoom: number;
  svg: SvgDocument;
  /** features of the layer's source (and source-layer), already in screen px */
  features(layer: LayerSpecification): RenderFeature[];
  rasterTiles(sourceId: string): RasterTile[];
  /** the view's tiles of a raster-dem source, decoded to heights */
  demTiles(sourceId: string): LoadedDemTile[];
  sprite: SpriteImages;
}
