// "This tileset changed" (published, unpublished, version ready or deleted, visibility edited,
// deleted): the tile serving cache listens so it never serves from a stale lookup.
import type { AppContext } from "../../context";

export interface TilesetChange {
  owner: string;
  slug: string;
}

const listeners = new WeakMap<AppContext, Set<(c: TilesetChange) => void>>();

export function onTilesetChange(ctx: AppContext, listener: (c: TilesetChange) => void): () => void {
  let set = listeners.get(ctx);
  if (!set) listeners.set(ctx, (set = new Set()));
  set.add(listener);
  return () => set!.delete(listener);
}

export function emitTilesetChange(ctx: AppContext, change: TilesetChange): void {
  for (const l of listeners.get(ctx) ?? []) l(change);
}
