// Vector tiles for a view: fetched once per render through RenderResources, decoded (or found decoded,
// see decoded-tiles.ts), and exposed per source layer as RenderFeatures in screen pixels.
import { decodeTile, type DecodedTile } from "./decoded-tiles";
import { renderFeature, type RenderFeature } from "./features";
import type { RenderResources } from "./types";
import { coveringTiles, invert, apply, layoutZoom, worldToScreen, type Camera, type TileId } from "./view";

/** Screen px beyond the view edge that lines are still drawn to, so their caps stay out of sight. */
export const CLIP_MARGIN_PX = 64;

export interface LoadedTile {
  id: TileId;
  tile: DecodedTile;
}

export async function loadVectorTiles(cam: Camera, sourceId: string, res: RenderResources): Promise<LoadedTile[]> {
  const info = res.sourceInfo(sourceId);
  if (!info) return [];
  const ids = coveringTiles(cam, info, false);
  const loaded = await Promise.all(
    ids.map(async (id) => {
      const bytes = await res.tile(sourceId, id.z, id.x, id.y);
      if (!bytes || bytes.length === 0) return null;
      try {
        return { id, tile: decodeTile(bytes) };
      } catch {
        return null; // a corrupt tile draws as empty, as in MapLibre
      }
    }),
  );
  return loaded.filter((t): t is LoadedTile => t !== null);
}

/** The features of one source layer across the loaded tiles. */
export function tileFeatures(cam: Camera, tiles: LoadedTile[], sourceLayer: string): RenderFeature[] {
  const out: RenderFeature[] = [];
  const tolerance = 0.5 / cam.view.pixelRatio;
  for (const { id, tile } of tiles) {
    const layer = tile.layer(sourceLayer);
    if (!layer || layer.features.length === 0) continue;
    const extent = layer.extent;
    const tileWorld = cam.worldSize / 2 ** id.z;
    const m = worldToScreen(cam, id.wrappedX * tileWorld, id.y * tileWorld, tileWorld / extent);
    const inv = invert(m);
    const { width, height } = cam.view;
    const corners = [
      apply(inv, -CLIP_MARGIN_PX, -CLIP_MARGIN_PX),
      apply(inv, width + CLIP_MARGIN_PX, -CLIP_MARGIN_PX),
      apply(inv, -CLIP_MARGIN_PX, height + CLIP_MARGIN_PX),
      apply(inv, width + CLIP_MARGIN_PX, height + CLIP_MARGIN_PX),
    ];
    const clip = {
      minX: Math.max(0, Math.min(...corners.map((c) => c[0]))),
      minY: Math.max(0, Math.min(...corners.map((c) => c[1]))),
      maxX: Math.min(extent, Math.max(...corners.map((c) => c[0]))),
      maxY: Math.min(extent, Math.max(...corners.map((c) => c[1]))),
    };
    if (clip.minX >= clip.maxX || clip.minY >= clip.maxY) continue;
    const space = {
      toScreen: m,
      clip,
      ownsPoint: (x: number, y: number) => x >= 0 && x < extent && y >= 0 && y < extent,
      tolerance,
      layout: { extent, split: 2 ** Math.min(10, Math.max(0, layoutZoom(cam.view.zoom) - id.z)) },
    };
    for (const f of layer.features) out.push(renderFeature(f.type, f.id, f.properties, f.rings, space));
  }
  return out;
}
