// Forward, autocomplete and reverse over the gazetteer file. Candidates come from three cheap lookups
// (exact and prefix matches on the folded-name B-tree, words inside names from the word index) and,
// when those find too little, typo candidates: names sharing the query's first letters, and names
// holding a word within a typo of one of the query's (word-typos.ts), re-ranked by edit distance. Each place
// keeps its best-matching name; places rank by one weight of population, kind and text match (and
// distance to `focus` for autocomplete): see TEXT_WEIGHT.
import type { Database } from "bun:sqlite";
import { alpha2Of, alpha3Of } from "../countries";
import type { AutocompleteQuery, BBox, ForwardQuery, GeocodeAnswer, Place, ReverseQuery } from "../types";
import { LAT_BAND } from "./store";
import { editDistance, foldName, typoBudget } from "./text";
import { createWordTypos } from "./word-typos";

interface CandidateRow {
  id: number;
  folded: string;
  population: number;
  importance: number;
  lon: number;
  lat: number;
  dataset: string;
  ext_id: string;
  layer: string;
  country_code: string | null;
}

interface PlaceRow {
  id: number;
  dataset: string;
  ext_id: string;
  layer: string;
  name: string;
  country_code: string | null;
  admin1: string | null;
  lon: number;
  lat: number;
}

/** A country, or one region of it (GeoNames admin1 code), that a query's context names. */
interface Area {
  country: string;
  admin1?: string;
}

interface Scored {
  row: CandidateRow;
  text: number;
  score: number;
  distance?: number;
}

const CANDIDATES_PER_LOOKUP = 300;
const TYPO_CANDIDATES = 500;
/**
 * Names read at most by one prefix, substring or typo lookup before ranking: a short prefix of a
 * million-place import matches tens of thousands, and ranking them all is what makes a slow query.
 * Past this, the lookup ranks the first names it read (in name order for prefixes), not every match.
 * With a bbox, country or region filter, ten times more: the first names read might lie outside it.
 */
const SCAN_LIMIT = 1000;
/**
 * Index entries a typo scan reads at most from one range of names sharing the query's first letters:
 * twice the largest two-letter range of the built-in data ("sa", ~9,600 names), so only imports reach it.
 */
const TYPO_SCAN = 20_000;
/**
 * Names holding a query's longest word read at most by a substring lookup of several words: far more
 * than any word of the built-in data has, so only a very common word of a large import is cut short.
 */
const WORD_SCAN = 20_000;
const scanLimit = (f: { sql: string }) => ` LIMIT ${f.sql ? SCAN_LIMIT * 10 : SCAN_LIMIT}`;
/** Layers whose point is only a label position (a country's capital), never "the nearest place". */
const AREA_LAYERS = "('country', 'macroregion', 'region')";
const EARTH_RADIUS_KM = 6371.0088;
/** store.ts's LAT_BAND on the alias `p`, word for word, so SQLite matches it to the index's expression. */
const LAT_BAND_OF_P = LAT_BAND.replace("lat", "p.lat");
/** The latitude bands (LAT_BAND) a box from `minLat` to `maxLat` spans. */
function latBands(minLat: number, maxLat: number): number[] {
  const band = (lat: number) => Math.trunc(lat + 90);
  return Array.from({ length: band(maxLat) - band(minLat) + 1 }, (_, i) => band(minLat) + i);
}

export function distanceKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A candidate's columns of `places` (alias p), besides its id. */
const PLACE_FACTS = "p.population, p.importance, p.lon, p.lat, p.dataset, p.ext_id, p.layer, p.country_code";

/**
 * One key per real place: GeoNames-based datasets (the built-in one and imported dumps) share GeoNames'
 * ids, so a town in the built-in data and in an imported allCountries is one place; a country is one
 * by its code (the built-in countries are keyed by code, a dump's by geonameid). Other datasets' places
 * are each their own.
 */
function placeKey(row: CandidateRow, geonamesBased: Set<string>): string | number {
  if (!geonamesBased.has(row.dataset)) return row.id;
  return row.layer === "country" && row.country_code ? `country:${row.country_code}` : `geonames:${row.ext_id}`;
}

/**
 * Keeps one of the candidates that are the same place (placeKey): the one `first` puts first, and of
 * equals the one imported last (the larger id), whose data is the operator's newest.
 */
function onePerPlace(scored: Scored[], geonamesBased: Set<string>, first: (a: Scored, b: Scored) => number): Scored[] {
  const kept = new Map<string | number, Scored>();
  for (const s of scored) {
    const key = placeKey(s.row, geonamesBased);
    const other = kept.get(key);
    if (!other || first(s, other) < 0 || (first(s, other) === 0 && s.row.id > other.row.id)) kept.set(key, s);
  }
  return kept.size === scored.length ? scored : [...kept.values()];
}

const roundKm = (km: number) => Math.round(km * 1000) / 1000;

const WHOLE_WORDS_FIRST = 0.9;
const WHOLE_WORDS_INSIDE = 0.8;
/**
 * How well the folded query matches a folded name, 0 when it does not (typos are scored elsewhere):
 * the answer's `confidence`. Whole words score above the letters of an unfinished one.
 */
function textScore(query: string, name: string): number {
  if (name === query) return 1;
  const ratio = query.length / name.length;
  // The name's first words ("washington" in "washington d c").
  if (name.startsWith(`${query} `)) return WHOLE_WORDS_FIRST;
  // Words inside the name ("new york" in "east new york").
  if (name.includes(` ${query} `) || name.endsWith(` ${query}`)) return WHOLE_WORDS_INSIDE;
  if (name.startsWith(query)) return 0.75 + 0.15 * ratio;
  if (name.includes(` ${query}`)) return 0.6 + 0.1 * ratio;
  if (name.includes(query)) return 0.4;
  return 0;
}
/** Whether the name holds the folded query as whole words: the whole name, its first words or words inside. */
const holdsWords = (query: string, name: string) => name === query || name.startsWith(`${query} `) || name.includes(` ${query} `) || name.endsWith(` ${query}`);

/**
 * Ranking, in orders of magnitude of population: log10 of the place's population, plus its kind's
 * prior (geonames.ts importanceOf: capitals and seats above, areas below), plus TEXT_WEIGHT per unit of
 * text score: each tenth of confidence lost costs a tenfold population. So an exact name beats a name
 * starting with the query's words ("Frankfurt am Main" for "frankfurt") unless that place has ten times
 * the weight, and a word inside a longer name ("York" in "New York City") unless it has a hundred times.
 */
const TEXT_WEIGHT = 10;
/** Autocomplete's focus bonus near the point (a place there ranks as one 10,000 times larger), falling by e every FOCUS_KM. */
const FOCUS_WEIGHT = 4;
const FOCUS_KM = 150;

/** A folded word as an FTS5 string (folded words hold only letters and digits; quoted all the same). */
const ftsWord = (s: string) => `"${s.replaceAll('"', '""')}"`;

export interface SearchOptions {
  attributionOf: (datasets: string[]) => string;
}

export function createSearch(db: Database, opts: SearchOptions) {
  const placeById = db.query<PlaceRow, [number]>("SELECT id, dataset, ext_id, layer, name, country_code, admin1, lon, lat FROM places WHERE id = ?");
  const localName = db.query<{ name: string }, [number, string, string]>(
    "SELECT name FROM names WHERE place_id = ?1 AND lang IN (?2, ?3) ORDER BY lang = ?2 DESC, preferred DESC, id LIMIT 1",
  );
  const countryPlace = db.query<{ id: number; name: string }, [string]>("SELECT id, name FROM places WHERE layer = 'country' AND country_code = ? ORDER BY importance DESC LIMIT 1");
  // The latest import's region names it; the built-in region (or any with one) gives its code.
  const regionPlace = db.query<{ id: number; name: string; abbr: string | null }, [string, string]>(
    `SELECT id, name, (SELECT abbr FROM places WHERE layer = 'region' AND country_code = ?1 AND admin1 = ?2 AND abbr IS NOT NULL LIMIT 1) AS abbr
     FROM places WHERE layer = 'region' AND country_code = ?1 AND admin1 = ?2 ORDER BY id DESC LIMIT 1`,
  );
  const countryByName = db.query<{ code: string }, [string]>(
    "SELECT p.country_code AS code FROM names n JOIN places p ON p.id = n.place_id WHERE n.folded = ? AND p.layer = 'country' LIMIT 1",
  );
  const geonamesDatasets = db.query<{ name: string }, []>("SELECT name FROM datasets WHERE kind IN ('builtin', 'geonames')");
  const geonamesBased = () => new Set(geonamesDatasets.all().map((d) => d.name));
  const regionsByName = db.query<{ country: string; admin1: string }, [string]>(
    "SELECT DISTINCT p.country_code AS country, p.admin1 FROM names n JOIN places p ON p.id = n.place_id WHERE n.folded = ? AND p.layer = 'region' AND p.country_code IS NOT NULL AND p.admin1 IS NOT NULL LIMIT 20",
  );

  function nameIn(placeId: number, fallback: string, language: string): string {
    // Names are stored under lower-case tags; a request's tag comes in BCP 47 case (de-CH).
    const lang = language.toLowerCase();
    const primary = lang.split("-")[0]!;
    return localName.get(placeId, lang, primary)?.name ?? fallback;
  }

  /** SQL conditions on `p` for bbox, country and context ("…, Illinois, USA") filters, with their parameters. */
  function filters(bbox: BBox | undefined, countries: string[] | undefined, context: Area[][] = []): { sql: string; params: (string | number)[] } {
    const parts: string[] = [];
    const params: (string | number)[] = [];
    if (bbox) {
      parts.push("p.lon BETWEEN ? AND ? AND p.lat BETWEEN ? AND ?");
      params.push(bbox[0], bbox[2], bbox[1], bbox[3]);
    }
    if (countries?.length) {
      parts.push(`p.country_code IN (${countries.map(() => "?").join(", ")})`);
      params.push(...countries);
    }
    // Each context part is one of the areas its name can mean: Georgia the country or the US state.
    for (const areas of context) {
      parts.push(`(${areas.map((a) => (a.admin1 ? "(p.country_code = ? AND p.admin1 = ?)" : "p.country_code = ?")).join(" OR ")})`);
      for (const a of areas) params.push(a.country, ...(a.admin1 ? [a.admin1] : []));
    }
    return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
  }

  // Each lookup first picks names from the names_by_folded index (or the word index), which carries
  // each name's population: only the most populous few are joined to their places (a read at a random
  // spot of a large file each). With a bbox, country or region filter the join must come first, so
  // more are read: the most populous names might lie outside it.
  const SELECT = `SELECT p.id, n.folded, ${PLACE_FACTS}`;
  /** `names` (place_id, folded, population rows, at most scanLimit of them) to candidates. */
  const joined = (names: string, f: ReturnType<typeof filters>) =>
    f.sql
      ? `${SELECT} FROM (${names}) n JOIN places p ON p.id = n.place_id WHERE 1${f.sql} ORDER BY p.population DESC LIMIT ${CANDIDATES_PER_LOOKUP}`
      : `${SELECT} FROM (SELECT * FROM (${names}) ORDER BY population DESC LIMIT ${CANDIDATES_PER_LOOKUP}) n JOIN places p ON p.id = n.place_id`;
  const NAME_COLUMNS = "SELECT place_id, folded, population FROM names";
  const exactLookup = (query: string, f: ReturnType<typeof filters>) =>
    db.query<CandidateRow, (string | number)[]>(joined(`${NAME_COLUMNS} WHERE folded = ? ORDER BY population DESC${scanLimit(f)}`, f)).all(query, ...f.params);
  // Words inside names ("york" in "East New York"): names holding a word that starts with the query's
  // word, or for a query of several words with its longest word (the rarest, and a short list to read;
  // a prefix when it is the last, which may be unfinished), checked for the whole query, in id order.
  const substringLookup = (query: string, f: ReturnType<typeof filters>) => {
    const words = query.split(" ");
    const longest = words.reduce((best, w, i) => (w.length >= words[best]!.length ? i : best), 0);
    const match = ftsWord(words[longest]!) + (longest === words.length - 1 ? "*" : "");
    if (words.length === 1)
      return db.query<CandidateRow, (string | number)[]>(joined(`${NAME_COLUMNS} WHERE id IN (SELECT rowid FROM names_words WHERE names_words MATCH ?${scanLimit(f)})`, f)).all(match, ...f.params);
    return db
      .query<CandidateRow, (string | number)[]>(
        joined(`${NAME_COLUMNS} WHERE id IN (SELECT rowid FROM names_words WHERE names_words MATCH ?1 LIMIT ${WORD_SCAN}) AND instr(folded, ?2) > 0 ORDER BY id${scanLimit(f)}`, f),
      )
      .all(match, query, ...f.params);
  };
  const prefixLookup = (query: string, f: ReturnType<typeof filters>) =>
    db
      .query<CandidateRow, (string | number)[]>(joined(`${NAME_COLUMNS} WHERE folded > ? AND folded < ? ORDER BY folded${scanLimit(f)}`, f))
      .all(query, `${query}\u{10FFFF}`, ...f.params);

  const similarWords = createWordTypos(db);
  // How many names hold any of the given words, counted no further than `cap`: FTS5 counts by reading
  // the lists, and a common word's ("new") is long.
  const namesHolding = db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT rowid FROM names_words WHERE names_words MATCH ?1 LIMIT ?2)");
  // The names holding any of the given words (an OR of words), of a length within the typo budget.
  const namesWithWords = db.query<unknown, [string, number, number]>(
    `SELECT folded, place_id FROM names WHERE id IN (SELECT rowid FROM names_words WHERE names_words MATCH ?1 LIMIT ${TYPO_SCAN}) AND length(folded) BETWEEN ?2 AND ?3 LIMIT ${SCAN_LIMIT * 4}`,
  );
  /**
   * Typo candidates by words: a name within the typo budget holds, for each of the query's words, that
   * word or one within its own budget of it (a typo in "new trter" is in one of its words). So the
   * names holding one query word's variants hold every answer: the word whose variants the fewest names
   * hold is the one read. An unfinished last word of an autocomplete text is no guide, unless alone.
   */
  function namesByWordTypos(query: string, shortest: number, longest: number, autocomplete: boolean): [string, number][] {
    const words = query.split(" ").filter(Boolean);
    // Longest first: usually the rarest, so the others are counted only up to its count.
    const guides = (autocomplete && words.length > 1 ? words.slice(0, -1) : words).sort((a, b) => b.length - a.length);
    // Names past what one scan reads could hide the answer after the cut: the first letters decide then.
    let best: { match: string; names: number } = { match: "", names: TYPO_SCAN + 1 };
    for (const word of guides) {
      const variants = similarWords(word);
      if (!variants.length) continue;
      const match = variants.map(ftsWord).join(" OR ");
      const names = namesHolding.get(match, best.names)!.n;
      // A word none of whose variants is in any name has more typos than its own budget ("nwe" for
      // "new"): the other words guide.
      if (names && names < best.names) best = { match, names };
    }
    if (!best.match) return [];
    return namesWithWords.values(best.match, shortest, longest) as [string, number][];
  }

  // Only names whose length is within the typo budget can be typos of the query. The range itself is
  // read only TYPO_SCAN entries far: in a large import a common start ("new ", "san ") holds over a
  // hundred thousand names, nearly all of other lengths, and reading them all is what made a slow typo.
  const sameStart = db.query<unknown, [string, string, number, number]>(
    `SELECT folded, place_id FROM (SELECT folded, place_id FROM names WHERE folded >= ?1 AND folded < ?2 LIMIT ${TYPO_SCAN})
     WHERE length(folded) BETWEEN ?3 AND ?4 LIMIT ${SCAN_LIMIT * 4}`,
  );
  const rangeTooLarge = db.query<unknown, [string, string]>(`SELECT 1 FROM names WHERE folded >= ?1 AND folded < ?2 LIMIT 1 OFFSET ${TYPO_SCAN}`);
  const placesById = (ids: number[], f: ReturnType<typeof filters>) =>
    db
      .query<CandidateRow, (string | number)[]>(`SELECT p.id, '' AS folded, ${PLACE_FACTS} FROM places p WHERE p.id IN (${ids.map(() => "?").join(", ")})${f.sql}`)
      .all(...ids, ...f.params);

  /**
   * Comma-separated trailing parts that name regions or countries ("Springfield, Illinois", "Paris,
   * France", "Springfield, IL, USA") narrow the search to them; a part that names neither makes the
   * whole text one name.
   */
  function splitContext(text: string): { name: string; areas: Area[][] } {
    const parts = text.split(",").map((p) => p.trim()).filter(Boolean);
    if (parts.length < 2) return { name: foldName(text), areas: [] };
    const context: Area[][] = [];
    for (const part of parts.slice(1)) {
      const folded = foldName(part);
      const code = /^[a-z]{2}$/.test(folded) ? folded.toUpperCase() : /^[a-z]{3}$/.test(folded) ? alpha2Of(folded) : null;
      const country = code && alpha3Of(code) ? code : countryByName.get(folded)?.code;
      const areas: Area[] = regionsByName.all(folded);
      if (country) areas.push({ country });
      if (!areas.length) return { name: foldName(text), areas: [] };
      context.push(areas);
    }
    return { name: foldName(parts[0]!), areas: context };
  }

  function candidates(query: string, f: ReturnType<typeof filters>, limit: number, autocomplete: boolean): Map<number, Scored> {
    const best = new Map<number, Scored>();
    const consider = (row: CandidateRow, text: number) => {
      if (text <= 0) return;
      const prev = best.get(row.id);
      if (!prev || prev.text < text) best.set(row.id, { row, text, score: 0 });
    };
    for (const row of exactLookup(query, f)) consider(row, 1);
    for (const row of prefixLookup(query, f)) consider(row, textScore(query, row.folded));
    // Words inside longer names ("york" in "New York") only when the name's start found too little.
    const found = (minText: number) => [...best.values()].filter((s) => s.text >= minText).length;
    if (query.length >= 3 && found(0.75) < limit) for (const row of substringLookup(query, f)) consider(row, textScore(query, row.folded));
    const budget = typoBudget(query.length);
    // A name typed exactly as a place is called is not a typo of another.
    if (found(0.6) < limit && budget > 0 && found(1) === 0) {
      const typoScore = (folded: string) => {
        const whole = editDistance(query, folded, budget);
        if (whole <= budget) return 0.72 - 0.15 * whole;
        if (!autocomplete || folded.length <= query.length) return 0;
        const head = editDistance(query, folded.slice(0, query.length), budget);
        return head <= budget ? 0.6 - 0.15 * head : 0;
      };
      const matched = new Map<number, { folded: string; text: number }>();
      const shortest = query.length - budget;
      const longest = autocomplete ? 1000 : query.length + budget;
      const measure = (names: [string, number][]) => {
        for (const [folded, placeId] of names) {
          const text = typoScore(folded);
          if (text > (matched.get(placeId)?.text ?? 0)) matched.set(placeId, { folded, text });
        }
      };
      // Most typos keep the first letters: those names come from the folded-name index alone and are
      // measured before anything is joined. The names sharing the first four letters first (a narrow
      // range even in a large import, where a two- or three-letter range holds tens of thousands of
      // names), then, when none of them is close enough, those sharing three, then two. A range too
      // large to read (only large imports have one: "new " starts a seventh of the names of a GeoNames
      // dump) is skipped with every shorter one, which holds it; a long query then tries the names
      // sharing its first half (a typo in the second half is the likelier one).
      const byFirstLetters = (shortestStart: number) => {
        const starts = [4, 3, 2].filter((n) => n < query.length && n >= shortestStart).map((n) => query.slice(0, n));
        const half = Math.ceil(query.length / 2);
        if (starts.length && half > 4 && rangeTooLarge.get(starts[0]!, `${starts[0]}\u{10FFFF}`)) starts.unshift(query.slice(0, half));
        for (const start of starts) {
          if (start.length <= 4 && rangeTooLarge.get(start, `${start}\u{10FFFF}`)) break;
          measure(sameStart.values(start, `${start}\u{10FFFF}`, shortest, longest) as [string, number][]);
          if (matched.size) break;
        }
      };
      // A name of several words is looked up by its words' typos first: its first letters are often a
      // common word ("new t..."), whose range is long to read and holds no answer when the typo is in
      // that word; then by its first four letters (for what a word's typos miss: a space dropped or
      // added), not fewer: a typo in a word's third or fourth letter is a typo of that word. A single
      // word goes by its first letters first, then by its typos (a typo in the first letters).
      const byWords = () => measure(namesByWordTypos(query, shortest, longest, autocomplete));
      const lookups = query.includes(" ") ? [byWords, () => byFirstLetters(4)] : [() => byFirstLetters(2), byWords];
      for (const lookup of lookups) {
        lookup();
        if (matched.size) break;
      }
      if (matched.size) {
        const ids = [...matched.entries()].sort((a, b) => b[1].text - a[1].text).slice(0, TYPO_CANDIDATES).map(([id]) => id);
        for (const row of placesById(ids, f)) consider({ ...row, folded: matched.get(row.id)!.folded }, matched.get(row.id)!.text);
      }
    }
    return best;
  }

  function feature(s: Scored, language: string): { place: Place; dataset: string } {
    const p = placeById.get(s.row.id)!;
    const name = nameIn(p.id, p.name, language);
    const properties: Place["properties"] = { gid: `${p.dataset}:${p.layer}:${p.ext_id}`, layer: p.layer, source: p.dataset, name };
    const label = [name];
    if (p.layer === "locality") properties.locality = name;
    if (p.admin1 && p.country_code && p.layer !== "country") {
      const region = regionPlace.get(p.country_code, p.admin1);
      if (region) {
        properties.region = p.layer === "region" ? name : nameIn(region.id, region.name, language);
        if (p.layer !== "region") label.push(properties.region);
        if (region.abbr) properties.region_a = region.abbr;
      }
    }
    if (p.country_code) {
      const country = countryPlace.get(p.country_code);
      if (country && p.layer !== "country") label.push((properties.country = nameIn(country.id, country.name, language)));
      else if (p.layer === "country") properties.country = name;
      properties.country_code = p.country_code;
      const a3 = alpha3Of(p.country_code);
      if (a3) properties.country_a = a3;
    }
    properties.label = label.join(", ");
    properties.confidence = Math.round(Math.min(1, s.text) * 100) / 100;
    if (s.distance !== undefined) properties.distance = roundKm(s.distance);
    return { place: { type: "Feature", geometry: { type: "Point", coordinates: [p.lon, p.lat] }, properties }, dataset: p.dataset };
  }

  function answer(ranked: Scored[], language: string): GeocodeAnswer {
    const built = ranked.map((s) => feature(s, language));
    const datasets = [...new Set(built.map((b) => b.dataset))].sort();
    return { features: built.map((b) => b.place), warnings: [], sources: datasets, attribution: opts.attributionOf(datasets) };
  }

  function search(text: string, limit: number, language: string, bbox: BBox | undefined, country: string[] | undefined, focus: { lon: number; lat: number } | undefined, autocomplete: boolean): GeocodeAnswer {
    const context = splitContext(text);
    if (!context.name) return answer([], language);
    const countries = country?.map((c) => (c.length === 3 ? alpha2Of(c) : c)).filter((c): c is string => !!c);
    const found = [...candidates(context.name, filters(bbox, countries?.length ? countries : undefined, context.areas), limit, autocomplete).values()];
    for (const s of found) {
      s.score = Math.log10(s.row.population + 1) + s.row.importance + TEXT_WEIGHT * s.text;
      if (focus) {
        s.distance = distanceKm(focus.lon, focus.lat, s.row.lon, s.row.lat);
        s.score += FOCUS_WEIGHT * Math.exp(-s.distance / FOCUS_KM);
      }
    }
    // A forward query names a place in whole words: the places whose names hold them come first, however
    // small, before larger places whose names only start with its letters ("Placename5" before
    // "Placename500") or are typos of it; autocomplete, still typing, ranks them together.
    const tier = (s: Scored) => (!autocomplete && holdsWords(context.name, s.row.folded) ? 1 : 0);
    const order = (a: Scored, b: Scored) => tier(b) - tier(a) || b.score - a.score;
    const scored = onePerPlace(found, geonamesBased(), order);
    scored.sort((a, b) => order(a, b) || b.row.population - a.row.population || a.row.id - b.row.id);
    // Confidence reads in the order of the list: an answer ranked below another (a town called exactly
    // "Victoria" after Victoria de Durango, Mexico's city of 520,000) is no surer than it.
    const top = scored.slice(0, limit);
    for (let i = 1; i < top.length; i++) top[i]!.text = Math.min(top[i]!.text, top[i - 1]!.text);
    return answer(top, language);
  }

  function reverse(q: ReverseQuery): GeocodeAnswer {
    // Inside a box (one index seek per latitude band it spans), SQLite keeps the nearest few by a
    // flat-earth distance (a bounded sort, no row objects for the rest); great-circle distances then
    // order those exactly.
    const near = db.query<CandidateRow, [string, number, number, number, number, number, number, number, number]>(
      `SELECT p.id, '' AS folded, ${PLACE_FACTS} FROM places p
       WHERE ${LAT_BAND_OF_P} IN (SELECT value FROM json_each(?1)) AND p.lon BETWEEN ?2 AND ?3 AND p.lat BETWEEN ?4 AND ?5 AND p.layer NOT IN ${AREA_LAYERS}
       ORDER BY (p.lat - ?6) * (p.lat - ?6) + (p.lon - ?7) * (p.lon - ?7) * ?8 LIMIT ?9`,
    );
    const cos2 = Math.cos((q.lat * Math.PI) / 180) ** 2;
    const keep = Math.max(64, q.limit * 8);
    const datasets = geonamesBased();
    const within = (radius: number, lonRadius = radius): Scored[] => {
      const rows: CandidateRow[] = [];
      const minLat = Math.max(-90, q.lat - radius);
      const maxLat = Math.min(90, q.lat + radius);
      const minLon = q.lon - lonRadius;
      const maxLon = q.lon + lonRadius;
      const bands = JSON.stringify(latBands(minLat, maxLat));
      rows.push(...near.all(bands, Math.max(-180, minLon), Math.min(180, maxLon), minLat, maxLat, q.lat, q.lon, cos2, keep));
      // The part of the box beyond the antimeridian, measured from the point shifted by 360 degrees.
      if (minLon < -180) rows.push(...near.all(bands, Math.max(-180, minLon + 360), 180, minLat, maxLat, q.lat, q.lon + 360, cos2, keep));
      if (maxLon > 180) rows.push(...near.all(bands, -180, Math.min(180, maxLon - 360), minLat, maxLat, q.lat, q.lon - 360, cos2, keep));
      const scored = onePerPlace(
        rows.map((row) => ({ row, text: 1, score: 0, distance: distanceKm(q.lon, q.lat, row.lon, row.lat) })),
        datasets,
        (a, b) => a.distance! - b.distance!,
      );
      return scored.sort((a, b) => a.distance! - b.distance! || b.row.population - a.row.population).slice(0, q.limit);
    };
    /** The box around the point that holds the spherical cap of radius `km`: [lat, lon] half-sizes in degrees. */
    const capBox = (km: number): [number, number] => {
      const delta = km / EARTH_RADIUS_KM;
      const lat = (delta * 180) / Math.PI;
      if (Math.abs(q.lat) + lat >= 90) return [lat, 180];
      return [lat, (Math.asin(Math.min(1, Math.sin(delta) / Math.cos((q.lat * Math.PI) / 180))) * 180) / Math.PI];
    };
    // A growing box until it holds `limit` places; then the box of the cap through the farthest of them,
    // so that no nearer place can lie outside what was searched.
    let radius = 0.1;
    let top = within(radius);
    while (top.length < q.limit && radius < 360) top = within((radius = Math.min(360, radius * 4)));
    if (top.length && radius < 360) {
      const [lat, lon] = capBox(top.at(-1)!.distance! * 1.0001);
      if (lat > radius || lon > radius) top = within(lat, lon);
    }
    // Confidence falls with distance: a place 10 km away is a weaker answer than one under 1 km.
    for (const s of top) s.text = Math.max(0.1, 1 - s.distance! / 50);
    return answer(top, q.language);
  }

  return {
    forward: (q: ForwardQuery) => search(q.q, q.limit, q.language, q.bbox, q.country, undefined, false),
    autocomplete: (q: AutocompleteQuery) => search(q.text, q.limit, q.language, undefined, undefined, q.focus, true),
    reverse,
  };
}
