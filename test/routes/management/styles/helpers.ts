// Rows for tilesets the styles tests refer to, written straight into the real database (the tilesets
// module has its own tests; here only their published/ready state matters).
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../../../src/context";
import { tilesets, tilesetVersions } from "../../../../src/db/schema";

/** What a processed vector tileset records about itself: one layer, `countries`, which mapStyle's layers read. */
const VECTOR_FACTS = { format: "pbf", minzoom: 0, maxzoom: 5, bounds: [-180, -85, 180, 85], center: [0, 0, 1], vector_layers: [{ id: "countries", fields: {} }] };

export function seedTileset(ctx: AppContext, orgId: number, slug: string, opts: { versions?: number; published?: number | null; visibility?: "public" | "private" } = {}) {
  const ts = ctx.db
    .insert(tilesets)
    .values({ orgId, slug, name: slug, visibility: opts.visibility ?? "public", publishedVersion: opts.published === undefined ? 1 : opts.published })
    .returning()
    .get();
  // The published version was published once, as the API would have recorded; the others never were.
  for (let v = 1; v <= (opts.versions ?? 1); v++)
    ctx.db.insert(tilesetVersions).values({ tilesetId: ts.id, version: v, state: "ready", metadata: VECTOR_FACTS, publishedAt: v === ts.publishedVersion ? Date.now() : null }).run();
  return ts;
}

export function publishTilesetVersion(ctx: AppContext, tilesetId: number, version: number) {
  const exists = ctx.db.select().from(tilesetVersions).where(eq(tilesetVersions.tilesetId, tilesetId)).all().some((v) => v.version === version);
  if (!exists) ctx.db.insert(tilesetVersions).values({ tilesetId, version, state: "ready" }).run();
  ctx.db.update(tilesetVersions).set({ publishedAt: Date.now() }).where(and(eq(tilesetVersions.tilesetId, tilesetId), eq(tilesetVersions.version, version), isNull(tilesetVersions.publishedAt))).run();
  ctx.db.update(tilesets).set({ publishedVersion: version }).where(eq(tilesets.id, tilesetId)).run();
}

export const json = (headers: Record<string, string>, body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify(body),
});

export function mapStyle(owner: string, opts: { tileset?: string; sprite?: string; font?: string } = {}) {
  return {
    version: 8,
    name: "Test",
    glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
    ...(opts.sprite ? { sprite: `mapstead://sprites/${owner}/${opts.sprite}` } : {}),
    sources: { countries: { type: "vector", url: `mapstead://tilesets/${owner}/${opts.tileset ?? "countries"}` } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": "#def" } },
      { id: "land", type: "fill", source: "countries", "source-layer": "countries", paint: { "fill-color": "#cfc" } },
      {
        id: "labels",
        type: "symbol",
        source: "countries",
        "source-layer": "countries",
        layout: { "text-field": ["get", "name"], "text-font": [opts.font ?? "Noto Sans Regular"] },
      },
    ],
  };
}
