// "This tileset changed" (published, unpublished, version ready or deleted, visibility edited,
// deleted): the tile serving cache listens so it never serves from a stale lookup.

export interface TilesetChange {
  owner: string;
  slug: string;
}

export function createTilesetEvents() {
  const listeners = new Set<(c: TilesetChange) => void>();
  return {
    on(listener: (c: TilesetChange) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit(change: TilesetChange): void {
      for (const l of listeners) l(change);
    },
  };
}

export type TilesetEvents = ReturnType<typeof createTilesetEvents>;
