import { t } from "elysia";
import { GEOMETRY_TYPES, MAX_LIMIT, MAX_RADIUS_M } from "../../read/tilequery";

export { ErrorEnvelope } from "../../errors";

export const TilequeryParams = t.Object({
  owner: t.String({ maxLength: 200, description: "organization slug" }),
  name: t.String({ maxLength: 300, description: "`{tileset}` (the published version) or `{tileset}@{version}`" }),
  coordinates: t.String({ maxLength: 100, description: "`{lon},{lat}.json`, in degrees" }),
});

/** Documentation of the query parameters: the handler reads the raw query string (a repeat is a 400). */
export const TilequeryQuery = t.Object({
  radius: t.Optional(t.String({ description: `metres around the point, 0 (default: features containing or touching it) to ${MAX_RADIUS_M}` })),
  limit: t.Optional(t.String({ description: `at most this many features, 1 to ${MAX_LIMIT} (default 5)` })),
  dedupe: t.Optional(t.String({ description: "`true` (default): one feature per id (or per layer, geometry type and properties when it has none), however many tiles hold it; `false`: every tile's copy" })),
  geometry: t.Optional(t.String({ description: `only features of this type: ${GEOMETRY_TYPES.join(", ")}` })),
  layers: t.Optional(t.String({ description: "only these layers, comma-separated (a name the tileset lacks is a 400)" })),
  access_token: t.Optional(t.String({ description: "An API key with maps:read, for a private tileset (when the X-API-Key header cannot be sent)" })),
});

export const TilequeryCollection = t.Object(
  {
    type: t.Literal("FeatureCollection"),
    features: t.Array(
      t.Object({
        type: t.Literal("Feature"),
        id: t.Optional(t.Number({ description: "the feature's id in the tileset, when it has one" })),
        geometry: t.Object(
          { type: t.Literal("Point"), coordinates: t.Tuple([t.Number(), t.Number()]) },
          { description: "the feature's point closest to the query point: the query point itself inside a polygon" },
        ),
        properties: t.Object(
          {
            tilequery: t.Object({
              distance: t.Number({ description: "metres from the query point to the feature (great-circle), 0 inside a polygon" }),
              geometry: t.Union([t.Literal("point"), t.Literal("linestring"), t.Literal("polygon")]),
              layer: t.String(),
            }),
          },
          { additionalProperties: true, description: "the feature's own properties, and `tilequery`" },
        ),
      }),
      { description: "nearest first, at most `limit`" },
    ),
  },
  { description: "GeoJSON FeatureCollection, as Mapbox's Tilequery API answers" },
);
