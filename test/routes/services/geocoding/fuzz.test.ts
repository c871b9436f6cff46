// Fuzzing the embedded geocoder's forward, reverse and autocomplete routes over real HTTP: seeded
// query strings with very long text, only punctuation, Unicode normalisation edge cases, bad
// percent-encoding, out-of-range coordinates, bbox/country/limit/language/focus combinations and repeated
// parameters. Every answer must be a 200 or a 4xx in the error envelope, never a 5xx, within a hang guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { dataDirWithGazetteer } from "../../../backends/geocoder/embedded/fixtures";
import { expectSane, mutate, prng, NASTY_NUMBERS, NASTY_TEXT, type Rng } from "../../../support/fuzz";

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await serveTestApp({}, { dataDir: await dataDirWithGazetteer() });
  key = seedKey(t.ctx, seedOrg(t.ctx, "geo").id, ["geocoding"]).secret;
});
afterAll(() => t?.close());

const WORDS = ["paris", "new york", "São Paulo", "zürich", "東京", "Москва", "القاهرة", "st.", "saint", "a", "aa", "sa", "lond", "frankfurt am main", "Ελλάδα", "ß", "ǅ", "ﬁ", "Å", "Å", "é", "é", "ｐａｒｉｓ", "𝐏𝐚𝐫𝐢𝐬", "İstanbul", "\u200b", "\u00a0"];
const PUNCT = ["...", "!!!", "---", "'''", "\"\"\"", "///", "***", ",,,", "???", "()", "[]", "{}", "<>", "@#$%^&", "\\", "|", "~`"];

const enc = encodeURIComponent;

function text(rng: Rng): string {
  switch (rng.int(9)) {
    case 0:
      return Array.from({ length: 1 + rng.int(120) }, () => rng.pick(WORDS)).join(rng.pick([" ", "", ",", "-"])).slice(0, 500);
    case 1:
      return Array.from({ length: 1 + rng.int(200) }, () => rng.pick(PUNCT)).join("");
    case 2:
      return rng.pick(["a", "x", "ab", "sa", "zz"]).repeat(1 + rng.int(250)).slice(0, 500);
    case 3:
      // near the limit, on both sides of it, in characters of one, two and four UTF-16 units
      return rng.pick(["a", "é", "𝐏", "東"]).repeat(495 + rng.int(10));
    case 4:
      // words that are each a typo away from many names
      return Array.from({ length: 60 + rng.int(60) }, () => rng.pick(["paros", "londn", "berln", "madird", "sana", "santa", "san"])).join(" ").slice(0, 500);
    default:
      return rng.pick(WORDS) + (rng.int(2) ? " " + rng.pick(WORDS) : "");
  }
}

/** A parameter value: plain, encoded, or mutated with raw (possibly broken) percent-escapes. */
function value(rng: Rng, v: string): string {
  const e = enc(v);
  return rng.int(4) === 0 ? mutate(rng, e) : e;
}

const coord = (rng: Rng, max: number) => (rng.int(4) === 0 ? rng.pick(NASTY_NUMBERS) : String(((rng.next() * 2 - 1) * max * 1.05).toFixed(rng.int(8))));

function randomCase(rng: Rng): string {
  const route = rng.pick(["forward", "reverse", "autocomplete"] as const);
  const params: string[] = [];
  if (route === "forward" && rng.int(12) !== 0) params.push(`q=${value(rng, text(rng))}`);
  if (route === "autocomplete" && rng.int(12) !== 0) params.push(`text=${value(rng, text(rng))}`);
  if (route === "reverse") {
    if (rng.int(12) !== 0) params.push(`lon=${enc(coord(rng, 180))}`);
    if (rng.int(12) !== 0) params.push(`lat=${enc(coord(rng, 90))}`);
  }
  if (rng.int(3) === 0) params.push(`limit=${rng.pick(["1", "5", "10", "25", "26", "0", "-1", "1.5", "1e1", "", "99999999999999999999", "NaN", " 5"])}`);
  if (rng.int(3) === 0) params.push(`language=${value(rng, rng.pick(["en", "de-CH", "zh-Hant-TW", "x", "EN", "pt_BR", "en-", "a".repeat(40), "ja", "ar", "und", "i-klingon", "\u00e9n"]))}`);
  // Mostly the route's own parameters; now and then another route's (a 400 naming it).
  const stray = rng.int(12) === 0;
  if (rng.int(3) === 0 && (route === "forward" || stray)) params.push(`bbox=${value(rng, rng.pick([`${coord(rng, 180)},${coord(rng, 90)},${coord(rng, 180)},${coord(rng, 90)}`, "-180,-90,180,90", "5.9,45.8,10.5,47.8", "1,1,1,1", "10,10,0,0", "1,2,3", "1,2,3,4,5", ",,,", "1e2,1,2,3", "179.999999,89.99999,180,90"]))}`);
  if (rng.int(4) === 0 && (route === "forward" || stray)) params.push(`country=${value(rng, rng.pick(["CH", "che,li", "XX", "ZZZ", "", ",", "ch,".repeat(60), "c", "çh", "US,USA", "gb,gbr,uk"]))}`);
  if (route === "autocomplete" || stray) {
    const focus = rng.int(3);
    if (focus !== 1 || rng.int(8) === 0) params.push(`focus.lon=${enc(coord(rng, 180))}`);
    if (focus !== 1 || rng.int(8) === 0) params.push(`focus.lat=${enc(coord(rng, 90))}`);
  }
  if (rng.int(10) === 0) params.push(rng.pick(params.length ? params : ["q=x"]));
  if (rng.int(15) === 0) params.push(rng.pick(["size=5", "text=paris", "q=paris", "point.lat=1", "api_key=x", "q", "=", "&&&", "q[]=a", "%00=1"]));
  // shuffle
  for (let i = params.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [params[i], params[j]] = [params[j]!, params[i]!];
  }
  return `/geocoding/v1/${route}?${params.join("&")}`;
}

describe("geocoding under fuzzing", () => {
  test("500 seeded queries: each a 200 or a 4xx envelope, never a 5xx, none near the hang guard", async () => {
    const rng = prng(0x9e0c0de);
    const statuses: Record<number, number> = {};
    let slowest = { ms: 0, path: "" };
    for (let i = 0; i < 500; i++) {
      const path = randomCase(rng);
      const { status, ms } = await expectSane(t.baseUrl + path, { headers: { "x-api-key": key } }).catch((err) => {
        throw new Error(`case ${i}: ${(err as Error).message}`);
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (ms > slowest.ms) slowest = { ms, path };
    }
    if (process.env.FUZZ_VERBOSE) console.log(statuses, slowest);
    expect(statuses[200]).toBeGreaterThan(100);
    expect(statuses[400]).toBeGreaterThan(100);
    expect(slowest.ms).toBeLessThan(15_000);
  }, 120_000);

  test("the costliest texts the 500-character limit allows: single letters, typo-bait words, a whole-bbox filter with fifty countries, NFKD expanders", async () => {
    const rng = prng(7);
    const word = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + rng.int(26))).join("");
    const countries = "US,CA,MX,BR,AR,CL,PE,CO,VE,EC,BO,PY,UY,GY,SR,FR,DE,IT,ES,PT,GB,IE,NL,BE,LU,CH,AT,PL,CZ,SK,HU,RO,BG,GR,TR,RU,UA,BY,LT,LV,EE,FI,SE,NO,DK,IS,CN,JP,KR,IN";
    for (const path of [
      `forward?q=${enc(Array.from({ length: 250 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(" "))}`,
      `forward?q=${enc(Array.from({ length: 60 }, () => word(7)).join(" "))}`,
      `forward?q=${enc(Array.from({ length: 83 }, () => "santa").join(" "))}&bbox=-180,-90,180,90`,
      `forward?q=s&bbox=-180,-90,180,90&country=${countries}`,
      `autocomplete?text=${enc(Array.from({ length: 166 }, () => word(2)).join(" "))}&focus.lon=0&focus.lat=0`,
      // U+FDFA decomposes into 18 characters: 500 of them fold to 9,000
      `forward?q=${enc("\ufdfa".repeat(500))}`,
      `autocomplete?text=${enc("\ufdfa".repeat(500))}`,
      `forward?q=${enc("a" + "\u0300".repeat(499))}`,
      "reverse?lon=180&lat=90&limit=10",
      "reverse?lon=-180&lat=-90&limit=10",
    ]) {
      const { status, ms } = await expectSane(`${t.baseUrl}/geocoding/v1/${path}`, { headers: { "x-api-key": key } });
      expect(status).toBe(200);
      expect(ms).toBeLessThan(15_000);
    }
  }, 120_000);
});
