// Public tile routes (CONTRACT.md): TileJSON (stable and versioned) and tiles at versioned URLs. The
// tile rules live in src/read/tile-answers.ts; these handlers only hand it the parsed request and viewer.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, TileJson, TileJsonParams, TileParams } from "./tiles.model";
import { withRouteFacts } from "../../http/route-facts";
import { openApiResponses } from "../../http/openapi-responses";

export function tilesModule(services: Services, authPlugin: AuthPlugin) {
  const { tiles } = services;
  return withRouteFacts({ cors: "public", group: "tiles" }, new Elysia({ name: "tiles", prefix: "/tiles/v1" })
    .use(authPlugin)
    .get(
      "/:owner/:name",
      async ({ params, request, set, viewer }) => sendAnswer(set, await tiles.tileJson(params.owner, params.name, request, viewer)),
      {
        viewer: true,
        params: TileJsonParams,
        detail: {
          responses: openApiResponses({
            200: TileJson,
            304: "Not modified (If-None-Match matched the ETag)",
            400: ErrorEnvelope,
            404: ErrorEnvelope,
          }),
          tags: ["Tiles"],
          summary: "TileJSON 3.0.0: {tileset}.json for the published version (max-age=60, ETag), {tileset}@{version}.json for one version (immutable)",
          description:
            "The `tiles` array always holds versioned URLs. The stable TileJSON carries the tileset's name, description and attribution as they are now; a versioned one those it had when the version became ready. Private tilesets, and versions never published, need a member session or a key of the org with maps:read (Cache-Control: private); otherwise 404.",
        },
      },
    )
    .get(
      "/:owner/:name/:z/:x/:y",
      async ({ params, request, set, viewer }) => sendAnswer(set, await tiles.tile(params, request, viewer)),
      {
        viewer: true,
        params: TileParams,
        detail: {
          responses: openApiResponses({
            200: [["application/vnd.mapbox-vector-tile", "image/png", "image/jpeg", "image/webp"], "The tile, in the archive's format (vector tiles gzipped with Content-Encoding: gzip when the client accepts it)"],
            204: "Empty tile inside the zoom range (outside the bounds too)",
            304: "Not modified (If-None-Match matched the ETag)",
            400: ErrorEnvelope,
            404: ErrorEnvelope,
            503: ErrorEnvelope,
          }),
          tags: ["Tiles"],
          summary: "One tile of one version: .mvt (alias .pbf), .png, .jpg or .webp matching the archive",
          description:
            "Vector tiles stored gzip are sent as is with Content-Encoding: gzip when Accept-Encoding allows, else decoded (503 STORAGE_UNAVAILABLE when the stored tile does not decode or unzips past 32 MiB, and when the version's archive cannot be read). Strong ETag, 304 on If-None-Match. " +
            "204 for an empty tile inside the zoom range, outside the bounds too (as TileServer GL, martin and pmtiles serve answer, and as GDAL needs); 404 TILE_NOT_FOUND outside the zoom range. Cache-Control: public, max-age=31536000, immutable (private tilesets and versions never published: private, and only for a member session or a key of the org with maps:read; otherwise 404).",
        },
      },
    ));
}

