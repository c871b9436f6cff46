// Shared by the embedded gazetteer tests: the built-in gazetteer built once per test process and copied
// into each test's DATA_DIR (a build takes seconds), and small GeoNames-format fixtures written here.
import { afterEach, beforeEach } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { buildBuiltinGazetteer } from "../../../../src/backends/geocoder/embedded/build";
import { createGazetteer, type Gazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { silentLogger } from "../../../../src/log";
import { GAZETTEER_FILE } from "../../../../src/backends/geocoder/embedded/store";
import { tempDir } from "../../../support/app";

let built: Promise<string> | null = null;

/** A data dir holding a ready gazetteer file (the built-in data), without building it again. */
export async function dataDirWithGazetteer(): Promise<string> {
  built ??= (async () => {
    const path = join(tempDir("mapstead-gazetteer-"), GAZETTEER_FILE);
    await buildBuiltinGazetteer(path);
    return path;
  })();
  const source = await built;
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  copyFileSync(source, join(dir, GAZETTEER_FILE));
  return dir;
}

/** A started gazetteer on a fresh data dir with the built-in data for every test of the file (closed after each). */
export function gazetteerEachTest(): { readonly dataDir: string; readonly gazetteer: Gazetteer } {
  const current = { dataDir: "", gazetteer: null as unknown as Gazetteer };
  beforeEach(async () => {
    current.dataDir = await dataDirWithGazetteer();
    current.gazetteer = createGazetteer({ dataDir: current.dataDir, log: silentLogger });
    await current.gazetteer.start();
  });
  afterEach(() => current.gazetteer.close());
  return current;
}

/** One row of GeoNames' geoname table (19 tab-separated columns). */
export function geonameRow(p: { id: number; name: string; lat: number; lon: number; fclass?: string; fcode?: string; country: string; admin1?: string; population?: number; alternates?: string[] }): string {
  return [
    p.id, p.name, p.name, (p.alternates ?? []).join(","), p.lat, p.lon, p.fclass ?? "P", p.fcode ?? "PPL", p.country, "", p.admin1 ?? "", "", "", "",
    p.population ?? 0, "", "", "Europe/Zurich", "2024-01-01",
  ].join("\t");
}

/** One row of alternateNamesV2 (10 columns). */
export const alternateNameRow = (altId: number, geonameId: number, lang: string, name: string, preferred = false) =>
  [altId, geonameId, lang, name, preferred ? "1" : "", "", "", "", "", ""].join("\t");

/** Two invented villages in canton Zurich, and the canton itself as a first-level region. */
export const VILLAGES_TSV =
  [
    geonameRow({ id: 9100001, name: "Hintertupfingen", lat: 47.31, lon: 8.71, country: "CH", admin1: "ZH", population: 120, alternates: ["Hinter Tupfingen"] }),
    geonameRow({ id: 9100002, name: "Vordertupfingen", lat: 47.32, lon: 8.72, country: "CH", admin1: "ZH", population: 80 }),
    geonameRow({ id: 2657895, name: "Canton of Zurich", lat: 47.41, lon: 8.65, fclass: "A", fcode: "ADM1", country: "CH", admin1: "ZH", population: 1_500_000 }),
  ].join("\n") + "\n";

export const zipOf = (files: Record<string, string | Uint8Array>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, body]) => [name, typeof body === "string" ? strToU8(body) : body])));
