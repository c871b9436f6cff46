// The console's Elevation settings (admin session): GET what answers the elevation API and the DEM in
// force, PUT the DEM tileset embedded elevation samples (ELEVATION_TILESET in the environment wins).
//   GET/PUT /api/v1/elevation/settings
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { Forbidden } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import { withRouteFacts } from "../../http/route-facts";
import { rejectUnknownFields } from "../../http/strict-body";

const tags = ["Elevation"];

const Bounds = t.Array(t.Number(), { minItems: 4, maxItems: 4, description: "west, south, east, north in degrees" });

const Settings = t.Object({
  mode: t.String({ description: "the ELEVATION setting: auto, opentopodata, embedded or off" }),
  backend: t.Union([t.Literal("opentopodata"), t.Literal("embedded"), t.Literal("none")], { description: "what answers the elevation API now" }),
  tileset: t.Union([t.String(), t.Null()], { description: "owner/slug of the DEM tileset in force, or null" }),
  source: t.Union([t.Literal("env"), t.Literal("console"), t.Null()], { description: "where the DEM choice comes from: env (ELEVATION_TILESET, which wins) or console" }),
  console_tileset: t.Union([t.String(), t.Null()], { description: "the DEM chosen in the console (kept even while ELEVATION_TILESET overrides it)" }),
  dem: t.Union(
    [
      t.Object({
        tileset: t.String(),
        version: t.Integer({ description: "the published version sampled" }),
        encoding: t.String({ description: "terrarium or mapbox" }),
        format: t.String({ description: "tile format: png or webp" }),
        minzoom: t.Integer(),
        maxzoom: t.Integer({ description: "the zoom whose tiles are sampled" }),
        bounds: Bounds,
        bytes: t.Integer({ description: "archive size" }),
        built_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
      }),
      t.Null(),
    ],
    { description: "the DEM in force when it can answer" },
  ),
  problem: t.Union([t.Object({ message: t.String(), fix: t.String() }), t.Null()], { description: "why the DEM in force cannot answer, and the fix" }),
  choices: t.Array(
    t.Object({ tileset: t.String(), name: t.String(), version: t.Integer(), encoding: t.String(), minzoom: t.Integer(), maxzoom: t.Integer(), bounds: Bounds }),
    { description: "tilesets of every organization whose published version is a raster DEM" },
  ),
});

const ChooseBody = t.Object({
  tileset: t.Union([t.String({ maxLength: 200 }), t.Null()], { description: "owner/slug of a published raster-DEM tileset, or null for none" }),
});

function requireAdmin(caller: { kind: string; isAdmin?: boolean }) {
  if (caller.kind !== "session" || !caller.isAdmin) throw new Forbidden("Only administrators can change the elevation settings");
}

export function elevationSettingsModule(services: Services, authPlugin: AuthPlugin) {
  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "elevation-settings", prefix: "/api/v1/elevation/settings" })
    .use(authPlugin)
    .get(
      "",
      ({ caller }) => {
        requireAdmin(caller);
        return services.elevationSettings.view();
      },
      {
        session: true,
        response: { 200: Settings, 401: ErrorEnvelope, 403: ErrorEnvelope },
        detail: {
          tags,
          summary: "Which backend answers the elevation API, and the DEM tileset in force with its coverage (admin session)",
          description: "403 FORBIDDEN for sessions of users who are not instance admins.",
        },
      },
    )
    .put(
      "",
      ({ caller, body }) => {
        requireAdmin(caller);
        return services.elevationSettings.choose(body.tileset);
      },
      {
        session: true,
        body: ChooseBody,
        transform: rejectUnknownFields(ChooseBody),
        response: { 200: Settings, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: "Choose the DEM tileset embedded elevation samples (admin session)",
          description:
            "Body: `{\"tileset\": \"owner/slug\"}` or `{\"tileset\": null}` for none. Kept in the database; every worker process answers from the new DEM " +
            "within a second. It is used when ELEVATION is `embedded`, or `auto` without ELEVATION_INTERNAL_URL. 400 for a malformed name, " +
            "404 TILESET_NOT_FOUND for an unknown tileset, 409 CONFLICT when the tileset has no published version or is not a raster DEM, " +
            "or when ELEVATION_TILESET is set in the environment (it wins; remove it and restart to choose here). 403 FORBIDDEN for non-admins.",
        },
      },
    ));
}
