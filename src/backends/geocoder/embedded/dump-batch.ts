// The parsed lines of a GeoNames dump as they cross from the parsing thread (dump-thread.ts) to the
// import: all strings of a batch joined into one (NUL cannot occur: such lines are refused as binary)
// and all numbers in one Float64Array, whose buffer is transferred. Posting arrays of objects instead
// made the import thread spend a third of the parse time taking them apart, and the parsing thread
// three times its parse time taking them in.
import type { NameRecord, PlaceRecord } from "./writer";

/** The files a dump can be, told apart by their number of columns. */
export type DumpFormat = "geoname" | "alternate_names" | "admin1";

export interface AlternateName {
  geonameId: string;
  name: NameRecord;
}

export interface Admin1Row {
  geonameId: string;
  country: string;
  admin1: string;
  name: string;
  ascii: string;
}

export interface PackedBatch {
  format: DumpFormat;
  /** the file, or the zip entry, the lines are from */
  entry: string;
  texts: string;
  numbers: Float64Array;
  /** data lines read (comments and blank lines aside), those parsed to nothing included */
  lines: number;
  /** bytes of the file read so far */
  bytesRead: number;
}

const SEPARATOR = "\u0000";

/** Collects one batch's records on the parsing side. */
export function batchPacker() {
  let texts: string[] = [];
  let numbers: number[] = [];
  return {
    place(p: PlaceRecord & { folded: string }) {
      texts.push(p.extId, p.layer, p.name, p.folded, p.countryCode ?? "", p.admin1 ?? "");
      for (const n of p.names) texts.push(n.name, n.folded!);
      numbers.push(p.population, p.importance, p.lon, p.lat, p.names.length);
    },
    alternateName(a: AlternateName | null) {
      // A line that holds no name (a link, a postcode) still counts as read.
      if (!a) return void numbers.push(-1);
      texts.push(a.geonameId, a.name.name, a.name.folded!, a.name.lang);
      numbers.push(a.name.preferred ? 1 : 0);
    },
    admin1(r: Admin1Row) {
      texts.push(r.geonameId, r.country, r.admin1, r.name, r.ascii);
      numbers.push(0);
    },
    /** The batch so far, and a fresh one started. */
    take(): { texts: string; numbers: Float64Array } {
      const out = { texts: texts.join(SEPARATOR), numbers: Float64Array.from(numbers) };
      texts = [];
      numbers = [];
      return out;
    },
  };
}

/** The records of a batch, on the import side; alternate-name lines without a name come as null. */
export function* unpackBatch(batch: PackedBatch): Generator<PlaceRecord | AlternateName | null | Admin1Row> {
  if (!batch.numbers.length) return;
  const texts = batch.texts.split(SEPARATOR);
  const numbers = batch.numbers;
  let t = 0;
  if (batch.format === "geoname") {
    for (let at = 0; at < numbers.length; at += 5) {
      const extId = texts[t]!;
      const layer = texts[t + 1]!;
      const name = texts[t + 2]!;
      const folded = texts[t + 3]!;
      const country = texts[t + 4]!;
      const admin1 = texts[t + 5]!;
      t += 6;
      const names: NameRecord[] = [];
      for (let k = 0; k < numbers[at + 4]!; k++, t += 2) names.push({ name: texts[t]!, folded: texts[t + 1]!, lang: "" });
      // The parsing side picked the names (dump-reader.ts).
      yield { extId, layer, name, folded, countryCode: country || null, admin1: admin1 || null, population: numbers[at]!, importance: numbers[at + 1]!, lon: numbers[at + 2]!, lat: numbers[at + 3]!, names, namesDistinct: true };
    }
  } else if (batch.format === "alternate_names") {
    for (const preferred of numbers) {
      if (preferred < 0) {
        yield null;
        continue;
      }
      const [geonameId, name, folded, lang] = texts.slice(t, (t += 4)) as [string, string, string, string];
      yield { geonameId, name: { name, folded, lang, preferred: preferred === 1 } };
    }
  } else {
    for (let k = 0; k < numbers.length; k++) {
      const [geonameId, country, admin1, name, ascii] = texts.slice(t, (t += 5)) as [string, string, string, string, string];
      yield { geonameId, country, admin1, name, ascii };
    }
  }
}
