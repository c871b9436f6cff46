// HTTP layer of the elevation API. `/elevation/v1/7.1,46.2;7.2,46.3` is one path segment to the router,
// so the coordinate list arrives as one parameter and is parsed (with errors naming the bad point) here.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { AlongQuery, documentedResponses, ErrorEnvelope, PointElevations, PointsParams, Profile } from "./elevation.model";
import { MAX_LOOKUP_POINTS, MAX_PATH_POINTS, parsePoints } from "../../domain/elevation/service";
import { withRouteFacts } from "../../http/route-facts";
import { BadRequest } from "../../errors";
import { REPEATED_PARAMETER_RULE, singleQueryOf } from "../../http/query-params";

const CACHE_DAY = "private, max-age=86400";
function answer(set: { headers: unknown }, body: string): string {
  const h = set.headers as Record<string, string>;
  h["content-type"] = "application/json; charset=utf-8";
  h["cache-control"] = CACHE_DAY;
  return body;
}
const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 429: ErrorEnvelope, 502: ErrorEnvelope, 503: ErrorEnvelope };
const tags = ["Elevation"];

export function elevationModule(services: Services, authPlugin: AuthPlugin) {
  const { elevation } = services;
  return withRouteFacts({ cors: "service", group: "elevation" }, new Elysia({ name: "elevation", prefix: "/elevation/v1" })
    .use(authPlugin)
    // Elysia's `query` keeps the last of a repeated key; the raw query string is read so that a repeat is a 400.
    .get("/along/:points", async ({ params, request, set }) => {
      const samples = singleQueryOf(request).get("samples") ?? undefined;
      return answer(set, await elevation.along(parsePoints(params.points, { min: 2, max: MAX_PATH_POINTS }), samples));
    }, {
      scope: "elevation",
      params: PointsParams,
      query: AlongQuery,
      detail: {
        tags,
        responses: documentedResponses({ 200: Profile, ...errors }),
        summary: "Elevation profile along a path of 2 to 500 points, resampled along great circles (cached one day)",
        description:
          "Answered by OpenTopoData (ELEVATION_INTERNAL_URL) or the embedded DEM tileset (ELEVATION_TILESET), as the ELEVATION setting chooses. " +
          "404 NO_ELEVATION_DATA with details.indices (sample indices) when the dataset does not cover part of the path or has no data there (an SRTM void, a gap between the files of a mosaic): no partial profile; 503 ELEVATION_NOT_CONFIGURED when no backend is set up (or the DEM tileset is missing, unpublished or not a DEM). " +
          REPEATED_PARAMETER_RULE,
      },
    })
    .get("/:points", async ({ params, request, set }) => {
      // /elevation/v1/along without its path: not a point named "along".
      if (params.points === "along")
        throw new BadRequest("The path's coordinates are missing: a profile is /elevation/v1/along/{lon},{lat};{lon},{lat}[;...]", { parameter: "coordinates" });
      singleQueryOf(request);
      return answer(set, await elevation.lookup(parsePoints(params.points, { min: 1, max: MAX_LOOKUP_POINTS })));
    }, {
      scope: "elevation",
      params: PointsParams,
      detail: {
        tags,
        responses: documentedResponses({ 200: PointElevations, ...errors }),
        summary: "Elevation of 1 to 100 points, lon,lat separated by semicolons (cached one day)",
        description:
          "Answered by OpenTopoData (ELEVATION_INTERNAL_URL) or the embedded DEM tileset (ELEVATION_TILESET, bilinear at its highest zoom), as the ELEVATION setting chooses. " +
          "Only real heights are blended: a point whose DEM pixel has no data (an SRTM void, a gap between the files of a mosaic) has no height, and pixels without data beside a point drop out. " +
          "404 NO_ELEVATION_DATA with details.indices (point indices) when the dataset does not cover some of the points or has no data there; 503 ELEVATION_NOT_CONFIGURED when no backend is set up. " +
          REPEATED_PARAMETER_RULE,
      },
    }));
}
