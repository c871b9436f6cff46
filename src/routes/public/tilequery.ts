// The Tilequery API (Mapbox's): features of a published vector tileset at or near a point. The work is
// in src/read/tilequery.ts; public like the tileset's tiles, and a key may come in `access_token`, as
// Mapbox clients send it.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, TilequeryCollection, TilequeryParams, TilequeryQuery } from "./tilequery.model";
import { withRouteFacts } from "../../http/route-facts";
import { openApiResponses } from "../../http/openapi-responses";
import { REPEATED_PARAMETER_RULE, singleQueryOf } from "../../http/query-params";

export function tilequeryModule(services: Services, authPlugin: AuthPlugin) {
  const { tilequery } = services;
  return withRouteFacts({ cors: "public", group: "tilequery", accessToken: true }, new Elysia({ name: "tilequery", prefix: "/tilequery/v1" })
    .use(authPlugin)
    .get(
      "/:owner/:name/:coordinates",
      // The raw query string, not Elysia's `query` (which keeps the last of a repeated key): a repeat is a 400.
      async ({ params, request, set, viewer }) => sendAnswer(set, await tilequery.query(params.owner, params.name, params.coordinates, singleQueryOf(request), viewer)),
      {
        viewer: true,
        params: TilequeryParams,
        query: TilequeryQuery,
        detail: {
          responses: openApiResponses({
            200: TilequeryCollection,
            400: ErrorEnvelope,
            404: ErrorEnvelope,
            503: ErrorEnvelope,
          }),
          tags: ["Tiles"],
          // Anonymous for a public tileset; a key (header or access_token) or a session for a private one.
          security: [{}, { apiKey: [] }, { accessToken: [] }, { session: [] }],
          summary: "Tilequery: features of a vector tileset at or near {lon},{lat} (Mapbox's Tilequery API)",
          description:
            "Reads each layer from the tiles of its highest zoom: the one holding the point and, when `radius` reaches past its edges, its neighbours (a radius that would need more than 36 tiles there is answered from a lower zoom, whose geometry is coarser; at most 144 tiles a query in all, the nearest first). " +
            "Each feature comes with the point of it closest to the query point (the query point inside a polygon) and `properties.tilequery` {distance in metres, geometry, layer}; nearest first. " +
            "400 BAD_REQUEST naming the parameter for a bad point or parameter, an unknown layer (the message lists the tileset's layers) or a raster tileset. " +
            "Cache-Control: public, max-age=60 at {tileset}, public, max-age=31536000, immutable at {tileset}@{version}; private tilesets and versions never published: private, and only for a member session or a key of the org with maps:read (X-API-Key or `access_token`), otherwise 404 as for a missing tileset. " +
            "503 STORAGE_UNAVAILABLE when the tileset's archive cannot be read on the server. " +
            REPEATED_PARAMETER_RULE,
        },
      },
    ));
}
