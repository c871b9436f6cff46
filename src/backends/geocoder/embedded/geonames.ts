// GeoNames' dump formats (download.geonames.org/export/dump, readme.txt): the `geoname` table
// (allCountries.txt, citiesN.txt, XX.txt: 19 tab-separated columns), `alternateNamesV2` (10 columns;
// the older alternateNames has 8) and admin1CodesASCII.txt (4). A line that does not fit throws InvalidGazetteerLine with what is
// wrong; the importer adds the file name and line number.
import type { NameRecord, PlaceRecord } from "./writer";

export class InvalidGazetteerLine extends Error {}

export const GEONAMES_ATTRIBUTION = "GeoNames (geonames.org), CC BY 4.0";

/** Pelias' layer names for GeoNames feature classes and codes. */
export function layerOf(featureClass: string, featureCode: string): string {
  if (featureClass === "A") {
    if (featureCode.startsWith("PCL") || featureCode === "TERR") return "country";
    if (featureCode === "ADM1") return "region";
    if (featureCode === "ADM2") return "county";
    if (featureCode.startsWith("ADM")) return "localadmin";
    return "macroregion";
  }
  if (featureClass === "P") return featureCode === "PPLX" ? "neighbourhood" : "locality";
  return "venue";
}

/**
 * What a place's kind adds to its rank, in orders of magnitude of population (search.ts ranks by
 * log10 of population plus this): a capital ranks as a place of 4 times its people (10^0.6), the seat
 * of a first-level region 2.5 times, of a county 1.25 times.
 */
const SEATS: Record<string, number> = { PPLC: 0.6, PPLG: 0.4, PPLA: 0.4, PPLA2: 0.1, PPLA3: 0.05 };
/** A country ranks as 10 times its people: its name mostly means the country, not its capital. */
const COUNTRY = 1;
/**
 * An administrative area (region, county, commune) ranks as a tenth of its people: a name more often
 * means the place than the area around it (the city of Zurich before its canton), unless the area is
 * far larger (the state of California before California, Missouri).
 */
const AREA = -1;
/** Layers of administrative areas. */
export const ADMIN_LAYERS = ["region", "county", "localadmin", "macroregion"];

/** A place's prior for ranking, in orders of magnitude of population, by its layer and GeoNames feature code. */
export function importanceOf(layer: string, featureCode: string): number {
  if (layer === "country") return COUNTRY;
  if (ADMIN_LAYERS.includes(layer)) return AREA;
  return SEATS[featureCode] ?? 0;
}

function coordinate(raw: string, what: "latitude" | "longitude"): number {
  const n = Number(raw);
  const limit = what === "latitude" ? 90 : 180;
  if (raw.trim() === "" || !Number.isFinite(n) || Math.abs(n) > limit) throw new InvalidGazetteerLine(`${what} ${JSON.stringify(raw.slice(0, 30))} is not a number from -${limit} to ${limit}`);
  return n;
}

export const GEONAME_COLUMNS = 19;

/** One row of the geoname table. */
export function parseGeonameLine(cols: string[]): PlaceRecord {
  if (cols.length !== GEONAME_COLUMNS) throw new InvalidGazetteerLine(`has ${cols.length} tab-separated columns; a GeoNames geoname row has ${GEONAME_COLUMNS}`);
  const [id, name, ascii, alternates, lat, lon, featureClass, featureCode, country] = cols as [string, string, string, string, string, string, string, string, string];
  if (!/^\d+$/.test(id)) throw new InvalidGazetteerLine(`geonameid ${JSON.stringify(id.slice(0, 30))} is not a number`);
  if (!name.trim()) throw new InvalidGazetteerLine("the name column is empty");
  const population = cols[14]!.trim() === "" ? 0 : Number(cols[14]);
  if (!Number.isSafeInteger(population) || population < 0) throw new InvalidGazetteerLine(`population ${JSON.stringify(cols[14]!.slice(0, 30))} is not a whole number`);
  const layer = layerOf(featureClass, featureCode);
  const names: NameRecord[] = [];
  if (ascii && ascii !== name) names.push({ name: ascii, lang: "" });
  if (alternates) for (const a of alternates.split(",")) if (a.trim()) names.push({ name: a.trim(), lang: "" });
  return {
    extId: id,
    layer,
    name: name.trim(),
    countryCode: /^[A-Z]{2}$/.test(country) ? country : null,
    admin1: cols[10]!.trim() || null,
    population,
    importance: importanceOf(layer, featureCode),
    lon: coordinate(lon, "longitude"),
    lat: coordinate(lat, "latitude"),
    names,
  };
}

/** Language codes of alternateNames that are not names (links, identifiers, postcodes, airport codes). */
const NOT_NAMES = new Set(["link", "wkdt", "post", "iata", "icao", "faac", "tcid", "unlc", "abbr", "fr_1793", "phon", "piny"]);

/** One row of alternateNamesV2 (or the older alternateNames); null for rows that are not names. */
export function parseAlternateNameLine(cols: string[]): { geonameId: string; name: NameRecord } | null {
  if (cols.length !== 10 && cols.length !== 8) throw new InvalidGazetteerLine(`has ${cols.length} tab-separated columns; an alternateNamesV2 row has 10 (alternateNames: 8)`);
  const [altId, geonameId, lang, name, preferred, , , historic] = cols as [string, string, string, string, string, string, string, string];
  if (!/^\d+$/.test(altId) || !/^\d+$/.test(geonameId)) throw new InvalidGazetteerLine("alternateNameId and geonameid must be numbers");
  if (NOT_NAMES.has(lang) || historic === "1" || !name.trim()) return null;
  if (lang && !/^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(lang)) return null;
  return { geonameId, name: { name: name.trim(), lang: lang.toLowerCase(), preferred: preferred === "1" } };
}

export const ADMIN1_COLUMNS = 4;

/** One row of admin1CodesASCII.txt: `CC.code`, name, ASCII name, geonameid. */
export function parseAdmin1Line(cols: string[]): { geonameId: string; country: string; admin1: string; name: string; ascii: string } {
  if (cols.length !== ADMIN1_COLUMNS) throw new InvalidGazetteerLine(`has ${cols.length} tab-separated columns; an admin1CodesASCII row has ${ADMIN1_COLUMNS}`);
  const [code, name, ascii, geonameId] = cols as [string, string, string, string];
  const dot = code.indexOf(".");
  const country = code.slice(0, dot);
  const admin1 = code.slice(dot + 1);
  if (dot !== 2 || !/^[A-Z]{2}$/.test(country) || !admin1) throw new InvalidGazetteerLine(`code ${JSON.stringify(code.slice(0, 30))} is not COUNTRY.ADMIN1 (as in US.IL)`);
  if (!/^\d+$/.test(geonameId)) throw new InvalidGazetteerLine(`geonameid ${JSON.stringify(geonameId.slice(0, 30))} is not a number`);
  if (!name.trim()) throw new InvalidGazetteerLine("the name column is empty");
  return { geonameId, country, admin1, name: name.trim(), ascii: ascii.trim() };
}
