// Admin API of the embedded gazetteer: list and delete its datasets, and load more into them: a GeoNames
// dump uploaded in the body, or a published point tileset's features. Imports never run in the request:
// the body streams to a file under DATA_DIR, the import is queued as a job (202 with its status URL),
// and the process that runs jobs imports it while GET /imports/{id} shows its progress.
import { rmSync } from "node:fs";
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { BadRequest, Forbidden, NotFound } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import { withRouteFacts } from "../../http/route-facts";
import { checkDatasetName } from "../../backends/geocoder/embedded/import-file";
import { deleteDataset } from "../../backends/geocoder/embedded/writer";
import { BUILTIN_DATASETS } from "../../backends/geocoder/embedded/builtin";
import { receiveUpload } from "../../domain/tilesets/upload";
import type { ImportStatus } from "../../domain/gazetteer/imports";

const tags = ["Gazetteer"];
const BUILTIN_NAMES = new Set(Object.values(BUILTIN_DATASETS).map((d) => d.name));

const Dataset = t.Object({
  name: t.String(),
  kind: t.String({ description: "builtin, geonames, alternate_names or tileset" }),
  attribution: t.String(),
  places: t.Integer(),
  names: t.Integer(),
  updated_at: t.String({ format: "date-time", description: "when the dataset was last written (its freshness)" }),
});

const DatasetList = t.Object({
  backend: t.String({ description: "the backend answering geocoding: pelias, embedded or off (GEOCODER)" }),
  state: t.String({ description: "absent (not opened yet), building, ready or failed" }),
  bytes: t.Union([t.Integer(), t.Null()], { description: "size of DATA_DIR/gazetteer.sqlite" }),
  built_at: t.Union([t.String(), t.Null()]),
  datasets: t.Array(Dataset),
});

const ImportResult = t.Object({
  dataset: t.String(),
  kind: t.String(),
  mode: t.String({ description: "replace or add" }),
  lines: t.Integer({ description: "data lines (or tileset features) read" }),
  places: t.Integer({ description: "places added (replaced places in add mode are not counted)" }),
  names: t.Integer(),
  skipped: t.Integer({ description: "alternate names whose place is in no imported GeoNames dataset; admin1CodesASCII regions with no imported place of theirs to stand at" }),
  ms: t.Integer(),
});

const Import = t.Object({
  id: t.Integer(),
  state: t.String({ description: "queued, running, done or failed" }),
  progress: t.Number({ description: "0 to 1: the share of the file (or of the tileset's tiles) read" }),
  source: t.Union([
    t.Object({ type: t.Literal("file"), filename: t.String(), bytes: t.Integer() }),
    t.Object({ type: t.Literal("tileset"), tileset: t.String({ description: "owner/slug" }), name_field: t.String() }),
  ]),
  dataset: t.Union([t.String(), t.Null()], { description: "null until the file shows which default applies" }),
  mode: t.String({ description: "replace or add" }),
  lines: t.Integer({ description: "read so far" }),
  places: t.Integer({ description: "written so far" }),
  names: t.Integer(),
  stage: t.Union([t.Literal("reading"), t.Literal("indexing"), t.Null()], {
    description: "while running: reading the file, or indexing after its last row (building the indexes and typo keys and committing: minutes for allCountries, with progress at 0.99); null otherwise",
  }),
  result: t.Union([ImportResult, t.Null()], { description: "when done" }),
  error: t.Union([t.String(), t.Null()], { description: "when failed: what is wrong with the data, or what stopped the import" }),
  details: t.Union([t.Object({ line: t.Optional(t.Integer()), entry: t.Optional(t.String()) }), t.Null()], { description: "the line (and zip entry) at fault" }),
  created_at: t.String({ format: "date-time" }),
  finished_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

const Queued = t.Object({ import: Import, status_url: t.String({ description: "GET it for progress until state is done or failed" }) });

const SearchAnswer = t.Object({
  type: t.Literal("FeatureCollection"),
  features: t.Array(t.Object({ type: t.Literal("Feature"), geometry: t.Object({ type: t.Literal("Point"), coordinates: t.Array(t.Number()) }), properties: t.Record(t.String(), t.Unknown()) })),
  attribution: t.String(),
});

const modeDoc = "add (default): places are added, or updated by their id; replace: the dataset becomes this data";
const UploadQuery = t.Object({
  name: t.Optional(t.String({ description: "dataset name: 1-64 of a-z 0-9 . _ -; default geonames (places), alternate-names or admin1-codes" })),
  mode: t.Optional(t.String({ description: modeDoc })),
  filename: t.Optional(t.String({ description: "the file's name, for a raw body (a multipart part or Content-Disposition carries its own)" })),
});

const TilesetImportBody = t.Object({
  tileset: t.String({ description: "a published vector tileset, owner/slug" }),
  name_field: t.String({ description: "the feature property that names each point" }),
  name: t.Optional(t.String({ description: "dataset name; default tileset-OWNER-SLUG" })),
  mode: t.Optional(t.String({ description: modeDoc })),
});

function requireAdmin(caller: { kind: string; isAdmin?: boolean }) {
  if (caller.kind !== "session" || !caller.isAdmin) throw new Forbidden("Only administrators can manage the gazetteer");
}

function checkMode(mode: string | undefined): "replace" | "add" {
  const m = mode ?? "add";
  if (m !== "replace" && m !== "add") throw new BadRequest(`mode must be replace or add (got ${JSON.stringify(m.slice(0, 20))})`, { parameter: "mode" });
  return m;
}

function checkName(name: string | undefined): string | undefined {
  if (name === undefined || name === "") return undefined;
  try {
    return checkDatasetName(name);
  } catch (err) {
    throw new BadRequest(`name: ${(err as Error).message}`, { parameter: "name" });
  }
}

/** `base` is PUBLIC_URL's path prefix: the status URL is where the client reaches it. */
const queued = (status: ImportStatus, set: { status?: number | string; headers: Record<string, string | number> }, base: string) => {
  const url = `${base}/api/v1/gazetteer/imports/${status.id}`;
  set.status = 202;
  set.headers.location = url;
  return { import: status, status_url: url };
};

export function gazetteerModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, gazetteer, gazetteerImports: imports } = services;
  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "gazetteer", prefix: "/api/v1/gazetteer" })
    .use(authPlugin)
    .get(
      "/datasets",
      async ({ caller }) => {
        requireAdmin(caller);
        await gazetteer.start();
        const s = gazetteer.status();
        return { backend: ctx.config.geocoder, state: s.state, bytes: s.bytes, built_at: s.built_at, datasets: s.datasets };
      },
      {
        session: true,
        response: { 200: DatasetList, 401: ErrorEnvelope, 403: ErrorEnvelope },
        detail: { tags, summary: "Datasets of the embedded gazetteer with their place and name counts (admin session)" },
      },
    )
    .post(
      "/datasets",
      async ({ caller, request, query, set }) => {
        requireAdmin(caller);
        const mode = checkMode(query.mode);
        const queryName = checkName(query.name);
        // Before the body is read: an upload that could not be imported is not worth receiving.
        imports.refuseWhileImporting();
        const upload = await receiveUpload(request, ctx.config.dataDir, ctx.config.maxUploadMb, ctx.overdue);
        try {
          if (upload.files) throw new BadRequest(`send one GeoNames file per import (got ${upload.files.length})`, { parameter: "file" });
          const name = queryName ?? checkName(upload.fields.name);
          const filename = (upload.filename ?? query.filename)?.slice(0, 200) || "upload";
          return queued(imports.importFile({ path: upload.path, filename, bytes: upload.bytes }, { dataset: name, mode }), set, services.ctx.config.basePath);
        } finally {
          // Queued, the upload was moved away; otherwise it is removed here.
          rmSync(upload.path, { recursive: true, force: true });
        }
      },
      {
        session: true,
        parse: "none",
        query: UploadQuery,
        response: { 202: Queued, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          tags,
          summary: "Upload a GeoNames dump and queue its import into a gazetteer dataset (admin session; 202)",
          description:
            "Body: the file itself (any Content-Type), or multipart/form-data with the file in 'file' (and optionally 'name'). Accepts GeoNames geoname dumps " +
            "(allCountries.zip, citiesN.zip, XX.zip, or their .txt), alternateNamesV2 (.zip or .txt; import it after the places it names) and " +
            "admin1CodesASCII.txt (regions, placed at their seat among places already imported). The file is stored and its import queued as a job: " +
            "the answer is 202 with the import's status and `status_url` (also in Location); GET it until `state` is done or failed. The import runs " +
            "in one transaction: a bad line fails it with the line in `error` and `details`, and nothing is written. Zip entries pointing outside " +
            "the archive and suspicious compression ratios fail it too. 409 IMPORT_IN_PROGRESS while another import is queued or running; " +
            "413 over MAX_UPLOAD_MB; 503 SERVER_STOPPING (with Retry-After) when the server is restarting and stops receiving an upload still streaming in. " +
            "Geocoding answers use the new data as soon as the import is done.",
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary" } },
              "multipart/form-data": { schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary" }, name: { type: "string" } } } },
            },
          },
        },
      },
    )
    .post(
      "/datasets/from-tileset",
      ({ caller, body, set }) => {
        requireAdmin(caller);
        const mode = checkMode(body.mode);
        const name = checkName(body.name);
        return queued(imports.importTileset(body.tileset, body.name_field, { dataset: name, mode }), set, services.ctx.config.basePath);
      },
      {
        session: true,
        body: TilesetImportBody,
        response: { 202: Queued, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: "Queue the import of a published point tileset's named features into a gazetteer dataset (admin session; 202)",
          description:
            "Every point feature of the tileset's published version with a non-empty `name_field` becomes a place (layer venue; a `population` " +
            "property ranks it). The tileset and field are checked now: 404 TILESET_NOT_FOUND when there is no published version, 400 naming " +
            "`name_field` with the fields it has, or `tileset` for raster tilesets. Then as for uploads: 202 with `status_url`, 409 IMPORT_IN_PROGRESS.",
        },
      },
    )
    .delete(
      "/datasets/:name",
      async ({ caller, params, set }) => {
        requireAdmin(caller);
        if (BUILTIN_NAMES.has(params.name)) throw new BadRequest(`dataset ${params.name} is built in and cannot be deleted`, { parameter: "name" });
        imports.refuseWhileImporting();
        const deleted = await gazetteer.withWriter(async (db) => deleteDataset(db, params.name));
        if (!deleted) throw new NotFound(`The gazetteer has no dataset ${params.name}`, "DATASET_NOT_FOUND");
        set.status = 204;
        return undefined;
      },
      {
        session: true,
        params: t.Object({ name: t.String() }),
        response: { 204: t.Void(), 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          tags,
          summary: "Delete an imported gazetteer dataset, with the names other datasets gave its places (admin session)",
          description: "Built-in datasets cannot be deleted (400). 409 IMPORT_IN_PROGRESS while an import is queued or running; 503 GEOCODER_UNAVAILABLE while the gazetteer is first being built.",
        },
      },
    )
    .get(
      "/search",
      async ({ caller, query }) => {
        requireAdmin(caller);
        const q = (query.q ?? "").trim();
        if (!q || q.length > 200) throw new BadRequest("q must be 1 to 200 characters: the place to look for", { parameter: "q" });
        const limit = query.limit === undefined ? 10 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 25) throw new BadRequest("limit must be a whole number from 1 to 25", { parameter: "limit" });
        await gazetteer.start();
        const answer = await gazetteer.geocoder.forward({ q, limit, language: "en" });
        return { type: "FeatureCollection" as const, features: answer.features.map((f) => ({ ...f, properties: { ...f.properties } })), attribution: answer.attribution ?? "" };
      },
      {
        session: true,
        query: t.Object({ q: t.Optional(t.String()), limit: t.Optional(t.String({ description: "1 to 25, default 10" })) }),
        response: { 200: SearchAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          tags,
          summary: "Search the embedded gazetteer directly, whichever backend GEOCODER picks (admin session; the console's Geocoding panel)",
          description: "Answers like /geocoding/v1/forward from the embedded gazetteer, without an API key, usage counting or the answer cache. 503 GEOCODER_UNAVAILABLE while it is first being built.",
        },
      },
    )
    .get(
      "/imports",
      ({ caller }) => {
        requireAdmin(caller);
        return { imports: imports.list() };
      },
      {
        session: true,
        response: { 200: t.Object({ imports: t.Array(Import) }), 401: ErrorEnvelope, 403: ErrorEnvelope },
        detail: { tags, summary: "The latest gazetteer imports, newest first (admin session)" },
      },
    )
    .get(
      "/imports/:id",
      ({ caller, params }) => {
        requireAdmin(caller);
        const id = Number(params.id);
        if (!Number.isSafeInteger(id) || id < 1) throw new BadRequest(`id must be a positive whole number (got ${JSON.stringify(params.id.slice(0, 20))})`, { parameter: "id" });
        return imports.get(id);
      },
      {
        session: true,
        params: t.Object({ id: t.String() }),
        response: { 200: Import, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope },
        detail: { tags, summary: "One gazetteer import: its state, progress and figures, and its error when it failed (admin session)" },
      },
    ));
}
