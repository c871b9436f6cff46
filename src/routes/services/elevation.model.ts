// TypeBox schemas of the elevation routes (CONTRACT.md "Elevation"). As in geocoding, query values are
// strings parsed by the service (400s name the parameter) and answers are documented, not re-validated.
import { t } from "elysia";
export { documentedResponses } from "./geocoding.model";

export const PointsParams = t.Object({
  points: t.String({ description: "lon,lat or lon,lat;lon,lat;... (longitude first; `;` may be sent as %3B)", examples: ["7.6586,45.9763", "7.6586,45.9763;7.7491,46.0207"] }),
});

export const AlongQuery = t.Object({
  samples: t.Optional(t.String({ examples: ["100"], description: "Samples along the path including both ends, 2 or more; above 500 (however large) is capped at 500 with a warning. Default 100." })),
});

const Location = t.Object({ lon: t.Number(), lat: t.Number() });

export const PointElevations = t.Object({
  elevations: t.Array(t.Object({ location: Location, elevation: t.Number({ description: "metres" }) })),
  units: t.Literal("m"),
  attribution: t.String(),
});

export const Profile = t.Object({
  profile: t.Array(t.Object({ distance: t.Number({ description: "metres from the start along the great circle" }), location: Location, elevation: t.Number() })),
  summary: t.Object({
    samples: t.Integer(),
    sample_spacing: t.Number({ description: "metres between samples" }),
    distance: t.Number({ description: "path length in metres" }),
    min_elevation: t.Number(),
    max_elevation: t.Number(),
    start_elevation: t.Number(),
    end_elevation: t.Number(),
    total_ascent: t.Number(),
    total_descent: t.Number(),
  }),
  units: t.Literal("m"),
  attribution: t.String(),
  warnings: t.Array(t.String()),
});

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";
