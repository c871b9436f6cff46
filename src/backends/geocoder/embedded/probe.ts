// What /health/detailed and preflight say about the embedded gazetteer: its state, the datasets it
// holds (places, names, file size, when built) and a sample search, with what to do when it is not
// answering. Without a live gazetteer (the preflight CLI) the file is only read, never built.
import { existsSync, statSync } from "node:fs";
import type { ProbeResult } from "../../probe";
import type { Gazetteer } from "./gazetteer";
import { gazetteerPath, listDatasets, metaValue, openGazetteerFile, type DatasetInfo } from "./store";
import { readBuildFailure } from "./build-failure";

const SAMPLE = "london";
const count = (n: number) => n.toLocaleString("en-US");
const mib = (bytes: number | null) => (bytes === null ? "" : `, ${(bytes / 1024 ** 2).toFixed(0)} MiB`);
const IMPORT_HINT = "only the built-in places of over 1000 people, regions and countries: import a GeoNames dump (mapstead gazetteer import allCountries.zip) for villages and other places";

function describeData(datasets: DatasetInfo[], bytes: number | null, builtAt: string | null): string {
  const places = datasets.reduce((n, d) => n + d.places, 0);
  const names = datasets.reduce((n, d) => n + d.names, 0);
  const list = datasets.map((d) => `${d.name} ${count(d.kind === "alternate_names" ? d.names : d.places)}`).join(", ");
  const onlyBuiltin = datasets.every((d) => d.kind === "builtin");
  return `${count(places)} places and ${count(names)} names in ${datasets.length} dataset(s) (${list})${mib(bytes)}${builtAt ? `, built ${builtAt}` : ""}${onlyBuiltin ? `; ${IMPORT_HINT}` : ""}`;
}

const FAILED_FIX = "Check that DATA_DIR is writable and has free space, then restart; deleting DATA_DIR/gazetteer.sqlite makes Mapstead rebuild it";

/** What the gazetteer file holds, read without opening it for searches (null when there is none yet). */
function fileDetail(dataDir: string): ProbeResult | null {
  const path = gazetteerPath(dataDir);
  if (!existsSync(path)) return null;
  try {
    const db = openGazetteerFile(path, { readonly: true });
    try {
      return { status: "ok", detail: `embedded gazetteer: ${describeData(listDatasets(db), statSync(path).size, metaValue(db, "built_at"))}` };
    } finally {
      db.close(false);
    }
  } catch (err) {
    return { status: "down", detail: `embedded gazetteer file ${path} cannot be read (${(err as Error).message})`, fix: FAILED_FIX };
  }
}

/** A build that failed in some process sharing DATA_DIR (the server's supervisor, say), or null. */
function failedBuild(dataDir: string): ProbeResult | null {
  const failed = readBuildFailure(gazetteerPath(dataDir));
  return failed ? { status: "down", detail: `embedded gazetteer could not be built${failed.at ? ` (${failed.at})` : ""}: ${failed.error}`, fix: FAILED_FIX } : null;
}

export async function probeEmbeddedGeocoder(dataDir: string, gazetteer?: Gazetteer): Promise<ProbeResult> {
  if (!gazetteer) return fileDetail(dataDir) ?? failedBuild(dataDir) ?? { status: "ok", detail: "embedded gazetteer: not built yet; it is built from the built-in data when the server starts, in a few seconds" };
  const s = gazetteer.status();
  // Not opened in this process yet (an HTTP worker that has not geocoded; the supervisor built the
  // file): what the file holds is still the answer, not "not opened".
  if (s.state === "absent")
    return fileDetail(dataDir) ?? failedBuild(dataDir) ?? { status: "ok", detail: "embedded gazetteer: not opened yet; it opens (or is built from the built-in data, in a few seconds) on the first geocoding request" };
  if (s.state === "building")
    return { status: "degraded", detail: "embedded gazetteer: being built from the built-in data; geocoding answers 503 GEOCODER_UNAVAILABLE with Retry-After until it is ready", fix: "Wait a few seconds" };
  if (s.state === "failed") return { status: "down", detail: `embedded gazetteer could not be built: ${s.error}`, fix: FAILED_FIX };
  const started = performance.now();
  try {
    const answer = await gazetteer.geocoder.forward({ q: SAMPLE, limit: 1, language: "en" });
    const ms = Math.round((performance.now() - started) * 100) / 100;
    const first = answer.features[0]?.properties.label;
    return {
      status: "ok",
      latency_ms: ms,
      detail: `embedded gazetteer: sample search "${SAMPLE}" answered ${first ? `"${first}"` : "nothing"} in ${ms} ms; ${describeData(s.datasets, s.bytes, s.built_at)}`,
    };
  } catch (err) {
    return { status: "down", detail: `embedded gazetteer: sample search failed (${(err as Error).message})`, fix: FAILED_FIX };
  }
}
