// The built-in first-level regions (states, provinces, cantons...): iso3166-2-db's subdivisions (MIT,
// from Wikidata and GeoNames), which carry each region's GeoNames admin1 code, so a place's `admin1`
// finds its region's names, and its ISO 3166-2 code for `region_a`. Regions have no position in that
// data: each is placed at its seat (a GeoNames PPLA place of the region), else its most populous place.
import subdivisionsJson from "../../../../node_modules/iso3166-2-db/data/iso3166-2.json" with { type: "file" };
import { importanceOf } from "./geonames";
import type { NameRecord, PlaceRecord } from "./writer";

export const REGIONS_ATTRIBUTION = "Region names: iso3166-2-db (MIT; Wikidata, GeoNames)";

interface Subdivision {
  name: string;
  names: Record<string, string>;
  iso: string;
  admin: string;
  reference?: { geonames?: number };
}

/** A place of the built-in cities that can stand for its region's position. */
export interface RegionSeat {
  country: string;
  admin1: string;
  featureCode: string;
  population: number;
  lon: number;
  lat: number;
}

const LANGUAGE = /^[a-z]{2,3}$/;

export async function builtinRegions(seats: RegionSeat[]): Promise<PlaceRecord[]> {
  // TypeScript types JSON modules by their content; `type: "file"` makes it the embedded file's path.
  const countries = (await Bun.file(subdivisionsJson as unknown as string).json()) as Record<string, { regions: Subdivision[] }>;
  const seatOf = new Map<string, RegionSeat>();
  const people = new Map<string, number>();
  for (const s of seats) {
    if (!s.admin1) continue;
    const key = `${s.country}.${s.admin1}`;
    if (s.featureCode !== "PPLX") people.set(key, (people.get(key) ?? 0) + s.population);
    const best = seatOf.get(key);
    const isSeat = (p: RegionSeat) => p.featureCode === "PPLA" || p.featureCode === "PPLC";
    if (!best || isSeat(s) > isSeat(best) || (isSeat(s) === isSeat(best) && s.population > best.population)) seatOf.set(key, s);
  }
  const out: PlaceRecord[] = [];
  const taken = new Set<string>();
  for (const [country, { regions }] of Object.entries(countries)) {
    for (const r of regions) {
      const seat = r.admin ? seatOf.get(`${country}.${r.admin}`) : undefined;
      const extId = String(r.reference?.geonames ?? `${country}.${r.admin}`);
      // Some subdivisions are listed twice (under two ISO codes): the first one is kept.
      if (!seat || taken.has(extId)) continue;
      taken.add(extId);
      // The data names Malta's Victoria (MT-45) "mt", its country's code: that is no name, GeoNames' stands in.
      const real = (name: string | undefined) => (name && name.toLowerCase() !== country.toLowerCase() ? name : undefined);
      const english = real(r.names.en) ?? real(r.name) ?? r.names.geonames ?? r.name;
      const names: NameRecord[] = real(r.name) ? [{ name: r.name, lang: "" }] : [];
      for (const [lang, name] of Object.entries(r.names)) if (LANGUAGE.test(lang) && real(name)) names.push({ name, lang, preferred: true });
      if (r.names.geonames) names.push({ name: r.names.geonames, lang: "" });
      // "Springfield, IL" names its state by the code people write; not a number (Burgenland's "1"),
      // which nobody writes for a region and which matched any query of that number.
      if (r.iso && !/\d/.test(r.iso)) names.push({ name: r.iso, lang: "abbr" });
      out.push({
        extId,
        layer: "region",
        name: english,
        countryCode: country,
        admin1: r.admin,
        abbr: r.iso || null,
        // The data has no population: the people of its places over 1000 (not their neighbourhoods,
        // which lie inside them) stand for it, which ranks California the state above California,
        // Missouri; an area's prior still ranks the city of Zurich above its canton.
        population: people.get(`${country}.${r.admin}`) ?? 0,
        importance: importanceOf("region", "ADM1"),
        lon: seat.lon,
        lat: seat.lat,
        names,
      });
    }
  }
  return out;
}
