// Admin API of the embedded gazetteer: list its datasets, and load a GeoNames dump into a named dataset
// (the body streams to a temp file under DATA_DIR/uploads, then into the gazetteer in one transaction).
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { BadRequest, Forbidden, Unprocessable } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import { withRouteFacts } from "../../http/route-facts";
import { checkDatasetName, importGeonamesFile, InvalidGazetteerData } from "../../backends/geocoder/embedded/import-file";
import { receiveUpload } from "../../domain/tilesets/upload";

const tags = ["Gazetteer"];

const Dataset = t.Object({
  name: t.String(),
  kind: t.String({ description: "builtin, geonames or alternate_names" }),
  attribution: t.String(),
  places: t.Integer(),
  names: t.Integer(),
  updated_at: t.String({ format: "date-time" }),
});

const DatasetList = t.Object({
  backend: t.String({ description: "the backend answering geocoding: pelias, embedded or off (GEOCODER)" }),
  state: t.String({ description: "absent (not opened yet), building, ready or failed" }),
  bytes: t.Union([t.Integer(), t.Null()], { description: "size of DATA_DIR/gazetteer.sqlite" }),
  built_at: t.Union([t.String(), t.Null()]),
  datasets: t.Array(Dataset),
});

const ImportAnswer = t.Object({
  dataset: t.String(),
  kind: t.String(),
  mode: t.String({ description: "replace or add" }),
  lines: t.Integer({ description: "data lines read" }),
  places: t.Integer({ description: "places added (replaced places in add mode are not counted)" }),
  names: t.Integer(),
  skipped: t.Integer({ description: "alternate names whose place is in no imported GeoNames dataset; admin1CodesASCII regions with no imported place of theirs to stand at" }),
  ms: t.Integer(),
});

const UploadQuery = t.Object({
  name: t.Optional(t.String({ description: "dataset name: 1-64 of a-z 0-9 . _ -; default geonames (places) or alternate-names" })),
  mode: t.Optional(t.String({ description: "add (default): places are added, or updated by geonameid; replace: the dataset becomes this file" })),
});

function requireAdmin(caller: { kind: string; isAdmin?: boolean }) {
  if (caller.kind !== "session" || !caller.isAdmin) throw new Forbidden("Only administrators can manage the gazetteer");
}

export function gazetteerModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, gazetteer } = services;
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
        const mode = query.mode ?? "add";
        if (mode !== "replace" && mode !== "add") throw new BadRequest(`mode must be replace or add (got ${JSON.stringify(mode.slice(0, 20))})`, { parameter: "mode" });
        if (query.name !== undefined) {
          try {
            checkDatasetName(query.name);
          } catch (err) {
            throw new BadRequest(`name: ${(err as Error).message}`, { parameter: "name" });
          }
        }
        const upload = await receiveUpload(request, ctx.config.dataDir, ctx.config.maxUploadMb);
        try {
          const name = query.name ?? upload.fields.name;
          const result = await importGeonamesFile(gazetteer, upload.path, { dataset: name || undefined, mode, label: upload.filename ?? "upload" });
          set.status = 201;
          return result;
        } catch (err) {
          if (err instanceof InvalidGazetteerData)
            throw new Unprocessable("INVALID_SOURCE_DATA", err.message, err.line !== undefined ? { line: err.line, ...(err.entry ? { entry: err.entry } : {}) } : undefined);
          throw err;
        } finally {
          await Bun.file(upload.path)
            .delete()
            .catch(() => {});
        }
      },
      {
        session: true,
        parse: "none",
        query: UploadQuery,
        response: { 201: ImportAnswer, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 422: ErrorEnvelope, 503: ErrorEnvelope },
        detail: {
          tags,
          summary: "Import a GeoNames dump into a gazetteer dataset (admin session)",
          description:
            "Body: the file itself (any Content-Type), or multipart/form-data with the file in 'file' (and optionally 'name'). Accepts GeoNames geoname dumps " +
            "(allCountries.zip, citiesN.zip, XX.zip, or their .txt) and alternateNamesV2 (.zip or .txt; import it after the places it names). The import runs in one " +
            "transaction: a bad line is 422 INVALID_SOURCE_DATA with details.line and nothing is written. Zip entries pointing outside the archive and " +
            "suspicious compression ratios are refused (422). 409 IMPORT_IN_PROGRESS while another import runs; 413 over MAX_UPLOAD_MB. Geocoding answers " +
            "use the new data as soon as this returns.",
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary" } },
              "multipart/form-data": { schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary" }, name: { type: "string" } } } },
            },
          },
        },
      },
    ));
}
