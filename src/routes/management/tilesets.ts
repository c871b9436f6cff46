// Tileset management API (CONTRACT.md "Management API"): a member session of the organization, or an
// API key of that organization with the tilesets:write scope. Unknown org 404; a session user who is
// not a member, or a key of another org, 403 FORBIDDEN. Uploads stream to disk (see upload.ts).
import { rmSync } from "node:fs";
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { BadRequest } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { requireOrgAccess, type Caller } from "../../http/auth";
import type { Recipe } from "../../tiles/recipe";
import { rejectUnknownFields } from "../../http/strict-body";
import { CreateTilesetBody, ErrorEnvelope, OrgParams, PublishBody, RecipeQuery, Tileset, TilesetParams, UpdateTilesetBody, Version, VersionParams } from "./tilesets.model";
import { receiveUpload } from "../../domain/tilesets/upload";
import { withRouteFacts } from "../../http/route-facts";
import { NextCursor, PageQuery, PAGING_NOTE, paged } from "./page.model";
import { rawQueryOf } from "../../http/query-params";

const TAGS = ["Tilesets"];

const list = (s: string | undefined) =>
  s
    ?.split(",")
    .map((x) => x.trim())
    .filter(Boolean);

const NUMBERS = ["minzoom", "maxzoom", "simplification", "point_spacing", "buffer", "tile_bytes"];
const STRINGS = ["layer", "rank", "tiny", "output", "encoding"];
const OBJECTS = ["types", "filter", "layers", "cluster"];
const KNOWN = new Set([...NUMBERS, ...STRINGS, ...OBJECTS, "include", "exclude"]);

/** Recipe settings given as JSON text when they come as a query parameter or multipart field, with an example each. */
const JSON_SETTINGS = {
  types: '{"population":"number"}',
  filter: '[">=","population",1000]',
  cluster: '{"radius":40,"maxzoom":12}',
  layers: '{"places.csv":{"layer":"towns"}}',
} as const;

function jsonSetting(name: keyof typeof JSON_SETTINGS, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest(`Recipe '${name}' must be JSON, e.g. ${JSON_SETTINGS[name]}`, { parameter: name });
  }
}

/** What an upload may carry besides its file, as query parameters or multipart fields. */
const UPLOAD_PARAMETERS = new Set(Object.keys(RecipeQuery.properties));
const UPLOAD_PARAMETERS_HINT = `an upload takes ${[...UPLOAD_PARAMETERS].join(", ")} (see the README's recipe section)`;

function parseRecipeJson(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequest(`${where} 'recipe' is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new BadRequest(`${where} 'recipe' must be a JSON object`);
  const unknown = Object.keys(parsed).find((k) => !KNOWN.has(k));
  if (unknown) throw new BadRequest(`Recipe setting '${unknown.slice(0, 64)}' is unknown; see the README's recipe section`);
  return parsed as Record<string, unknown>;
}

/**
 * Recipe from query parameters and multipart fields: a JSON `recipe` (query or field) first, then named
 * parameters over it. Values are checked later by recipeProblem, whose messages name the setting;
 * parameters and fields of no setting are refused here.
 */
export function recipeFrom(query: Record<string, unknown>, fields: Record<string, string>, sentQueryKeys: Iterable<string>): Recipe {
  // A misspelt setting (max_zoom) would otherwise build a version with the default silently. The
  // query's schema drops unknown keys, so they are looked for among those the URL carried.
  const unknownParameter = [...sentQueryKeys].find((k) => !UPLOAD_PARAMETERS.has(k));
  if (unknownParameter !== undefined) throw new BadRequest(`Query parameter '${unknownParameter.slice(0, 64)}' is unknown; ${UPLOAD_PARAMETERS_HINT}`, { parameter: unknownParameter.slice(0, 64) });
  const unknownField = Object.keys(fields).find((k) => !UPLOAD_PARAMETERS.has(k));
  if (unknownField !== undefined) throw new BadRequest(`Multipart field '${unknownField.slice(0, 64)}' is unknown; ${UPLOAD_PARAMETERS_HINT}`, { parameter: unknownField.slice(0, 64) });
  const q: Record<string, unknown> = {};
  if (typeof query.recipe === "string") Object.assign(q, parseRecipeJson(query.recipe, "Query parameter"));
  if (fields.recipe !== undefined) Object.assign(q, parseRecipeJson(fields.recipe, "Multipart field"));
  for (const k of [...NUMBERS, ...STRINGS, "include", "exclude"]) {
    if (query[k] !== undefined) q[k] = query[k];
    if (fields[k] !== undefined) q[k] = fields[k];
  }
  // Settings whose values are JSON come as JSON text in a parameter or field of their name.
  for (const k of Object.keys(JSON_SETTINGS) as (keyof typeof JSON_SETTINGS)[]) {
    if (typeof query[k] === "string") q[k] = jsonSetting(k, query[k]);
    if (fields[k] !== undefined) q[k] = jsonSetting(k, fields[k]);
  }
  const r: Record<string, unknown> = {};
  for (const k of NUMBERS) {
    const v = q[k];
    if (v === undefined || v === "") continue;
    const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw new BadRequest(`Recipe '${k}' must be a number`);
    r[k] = n;
  }
  for (const k of STRINGS) if (q[k] !== undefined) r[k] = String(q[k]);
  for (const k of OBJECTS) if (q[k] !== undefined) r[k] = q[k];
  for (const k of ["include", "exclude"]) {
    const v = q[k];
    const names = Array.isArray(v) ? v.map(String) : typeof v === "string" ? list(v) : undefined;
    if (names?.length) r[k] = names;
  }
  return r as Recipe;
}

export function tilesetsModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, tilesets: service } = services;
  services.startJobs();
  const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };
  const access = (caller: Caller, org: string) => requireOrgAccess(ctx.db, org, caller, { keyScope: "tilesets:write" });
  const auth = { scope: "tilesets:write" as const };

  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "tilesets", prefix: "/api/v1/orgs" })
    .use(authPlugin)
    .get("/:org/tilesets", ({ caller, params, query }) => paged("tilesets", service.list(access(caller, params.org)), query, (ts) => ts.slug, "asc", (ts) => ts), {
      ...auth,
      params: OrgParams,
      query: t.Object(PageQuery),
      response: { 200: t.Object({ tilesets: t.Array(Tileset), next_cursor: NextCursor }), ...errors },
      detail: { tags: TAGS, summary: "Tilesets of an organization, by slug", description: PAGING_NOTE },
    })
    .post(
      "/:org/tilesets",
      ({ caller, params, body, set }) => {
        const record = service.create(access(caller, params.org), body);
        set.status = 201;
        return record;
      },
      {
        ...auth,
        params: OrgParams,
        body: CreateTilesetBody,
        transform: rejectUnknownFields(CreateTilesetBody),
        response: { 201: Tileset, 409: ErrorEnvelope, ...errors },
        detail: { tags: TAGS, summary: "Create a tileset (409 CONFLICT when the slug is taken)" },
      },
    )
    .get("/:org/tilesets/:ts", ({ caller, params }) => service.get(access(caller, params.org), params.ts), {
      ...auth,
      params: TilesetParams,
      response: { 200: Tileset, ...errors },
      detail: { tags: TAGS, summary: "One tileset" },
    })
    .patch("/:org/tilesets/:ts", ({ caller, params, body }) => service.update(access(caller, params.org), params.ts, body), {
      ...auth,
      params: TilesetParams,
      body: UpdateTilesetBody,
      transform: rejectUnknownFields(UpdateTilesetBody),
      response: { 200: Tileset, ...errors },
      detail: { tags: TAGS, summary: "Edit name, description, attribution or visibility" },
    })
    .delete(
      "/:org/tilesets/:ts",
      ({ caller, params, set }) => {
        service.remove(access(caller, params.org), params.ts);
        set.status = 204;
      },
      {
        ...auth,
        params: TilesetParams,
        response: { 204: t.Void(), 409: ErrorEnvelope, ...errors },
        detail: {
          tags: TAGS,
          summary: "Delete a tileset with every version and file; its tile URLs answer 404 at once (409 while a published style uses it)",
          description: "A version being processed stops, wherever it runs (the server's job queue or a CLI import), and its half-written archive is removed.",
        },
      },
    )
    .post(
      "/:org/tilesets/:ts/versions",
      async ({ caller, params, query, request, set }) => {
        const org = access(caller, params.org);
        service.get(org, params.ts); // 404 before reading a large body
        const upload = await receiveUpload(request, ctx.config.dataDir, ctx.config.maxUploadMb, ctx.overdue);
        if (!upload.filename && query.filename) upload.filename = query.filename;
        let recipe: Recipe;
        try {
          recipe = recipeFrom(query, upload.fields, new URLSearchParams(rawQueryOf(request)).keys());
        } catch (err) {
          // A multipart upload of several files is a directory, which Bun.file().delete() leaves behind.
          rmSync(upload.path, { recursive: true, force: true });
          throw err;
        }
        const { record } = await service.createVersion(org, params.ts, upload, recipe);
        set.status = 202;
        return record;
      },
      {
        ...auth,
        parse: "none",
        params: TilesetParams,
        query: RecipeQuery,
        response: { 202: Version, 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope, 422: ErrorEnvelope, 503: ErrorEnvelope, 507: ErrorEnvelope, ...errors },
        detail: {
          tags: TAGS,
          summary: "Upload data into a new version (202; poll the version until ready or failed; 507 when DATA_DIR lacks room for it)",
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary", description: "the file itself, any Content-Type" } },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["file"],
                  properties: {
                    file: { type: "string", format: "binary" },
                    recipe: { type: "string", description: 'the whole recipe as a JSON object, e.g. {"maxzoom":12,"layers":{"places.csv":{"rank":"population","cluster":{"radius":40,"maxzoom":10}}}}' },
                    layer: { type: "string" },
                    minzoom: { type: "integer" },
                    maxzoom: { type: "integer" },
                    simplification: { type: "number" },
                    include: { type: "string" },
                    exclude: { type: "string" },
                    rank: { type: "string" },
                    point_spacing: { type: "number" },
                    tiny: { type: "string", enum: ["drop", "keep"] },
                    buffer: { type: "integer" },
                    tile_bytes: { type: "integer" },
                    output: { type: "string", enum: ["mbtiles", "pmtiles"] },
                    encoding: { type: "string", enum: ["terrarium", "mapbox"], description: "raster DEM: RGB encoding of imported elevation tiles, or the one to build" },
                    types: { type: "string", description: 'JSON object: attribute conversions, e.g. {"population":"number"}' },
                    filter: { type: "string", description: 'JSON: keep only matching features (legacy MapLibre filter), e.g. [">=","population",1000]' },
                    cluster: { type: "string", description: 'JSON object: cluster points below a zoom, e.g. {"radius":40,"maxzoom":12}' },
                    layers: { type: "string", description: 'JSON object: layer settings per file name (or path in a zip), e.g. {"places.csv":{"layer":"towns","maxzoom":12}}' },
                    filename: { type: "string", description: "the file's name when its part carries none (.hgt files need it)" },
                  },
                },
              },
            },
          },
          description:
            "Body: the file itself (curl --data-binary @file) or multipart/form-data with one or more file parts (one layer each; a zip may hold " +
            "several files too) plus optional recipe fields, or the whole recipe as JSON in a `recipe` field or query parameter (named fields win). " +
            "The format is detected from the content: GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, zipped Shapefile (WGS84 or Web Mercator), " +
            "FlatGeobuf, GeoPackage (each feature table a layer named after the table, a lone table named like a single file; EPSG:4326 or EPSG:3857), MBTiles, PMTiles. " +
            "Layer settings (recipe top level, or per input file under `layers`): `layer` (name), `minzoom`/`maxzoom` (0-16), `simplification` " +
            "(tile pixels, default 3), `include`/`exclude` (attribute names), `types` ({attribute: string|number|boolean}), `filter` (legacy MapLibre " +
            "filter on the file's attributes), `rank` (numeric attribute kept first), `point_spacing` (pixels, default 1; 0 keeps every point), " +
            "`tiny` (drop|keep), `cluster` ({radius: 1-256 pixels, default 40; maxzoom: first zoom without clusters, default the layer's maxzoom}: " +
            "points of a cell become one feature with cluster, point_count and point_count_abbreviated). Version settings: `buffer` (pixels, default 4), " +
            "`tile_bytes` (largest gzipped tile, default 500000), `output` (mbtiles|pmtiles), `encoding` (raster DEM), `layers` ({file name, or path in a zip: layer settings}). " +
            "Raster DEM (elevation): a GeoTIFF in lon/lat or SRTM .hgt files (one named like N46E007.hgt via ?filename=, or a zip of them) are built into a " +
            "Terrarium (default) or Terrain-RGB (`encoding=mapbox`) MBTiles from zoom 0 (or minzoom) to maxzoom (default: the data's resolution); " +
            "an MBTiles/PMTiles of PNG or lossless WebP elevation tiles becomes a DEM with `encoding=terrarium|mapbox` or when its metadata declares `encoding`. " +
            "Content-Encoding: gzip (or x-gzip, deflate) bodies are decoded as they stream, MAX_UPLOAD_MB applying to the decoded size; a body that does not decode is 400, " +
            "any other coding (br, zstd, compress...) 415 naming it; without the header a gzip file is refused (415), not unpacked. " +
            "413 over MAX_UPLOAD_MB, 415 for other types, 422 INVALID_SOURCE_DATA when the data is invalid at a glance (e.g. `encoding` on vector data, lossy WebP DEM tiles, " +
            "an .hgt without its corner in the name); later problems end the version `failed` with a message. " +
            "503 SERVER_STOPPING (with Retry-After) when the server is restarting and stops receiving an upload still streaming in: send it again.",
        },
      },
    )
    .get("/:org/tilesets/:ts/versions", ({ caller, params, query }) => paged("versions", service.listVersions(access(caller, params.org), params.ts), query, (v) => v.version, "desc", (v) => v), {
      ...auth,
      params: TilesetParams,
      query: t.Object(PageQuery),
      response: { 200: t.Object({ versions: t.Array(Version), next_cursor: NextCursor }), ...errors },
      detail: { tags: TAGS, summary: "Versions, newest first", description: PAGING_NOTE },
    })
    .get("/:org/tilesets/:ts/versions/:n", ({ caller, params }) => service.getVersion(access(caller, params.org), params.ts, params.n), {
      ...auth,
      params: VersionParams,
      response: { 200: Version, ...errors },
      detail: { tags: TAGS, summary: "One version: state, progress, error, warnings, layers, bounds, zooms, stats" },
    })
    .delete(
      "/:org/tilesets/:ts/versions/:n",
      ({ caller, params, set }) => {
        service.deleteVersion(access(caller, params.org), params.ts, params.n);
        set.status = 204;
      },
      {
        ...auth,
        params: VersionParams,
        response: { 204: t.Void(), 409: ErrorEnvelope, ...errors },
        detail: {
          tags: TAGS,
          summary: "Delete a version and its files (409 for the published one, or one the current version of a published style pins); processing stops",
          description: "Processing stops wherever it runs (the server's job queue or a CLI import), and the half-written archive is removed.",
        },
      },
    )
    .post("/:org/tilesets/:ts/publish", ({ caller, params, body }) => service.publish(access(caller, params.org), params.ts, body.version), {
      ...auth,
      params: TilesetParams,
      body: PublishBody,
      transform: rejectUnknownFields(PublishBody),
      response: { 200: Tileset, 409: ErrorEnvelope, ...errors },
      detail: {
        tags: TAGS,
        summary: "Point the stable TileJSON at a ready version (409 CONFLICT when it is not ready)",
        description:
          "A version's first publish also opens its versioned URLs to everyone (on a public tileset) and lets them be cached as immutable; until then they answer only the organization. The server log records it as `tileset published` with the organization, tileset and version.",
      },
    })
    .post("/:org/tilesets/:ts/unpublish", ({ caller, params }) => service.unpublish(access(caller, params.org), params.ts), {
      ...auth,
      params: TilesetParams,
      response: { 200: Tileset, ...errors },
      detail: {
        tags: TAGS,
        summary: "Remove the stable TileJSON URL (404 afterwards); versioned URLs of versions published before keep working",
        description: "The server log records it as `tileset unpublished` with the organization and tileset.",
      },
    }));
}
