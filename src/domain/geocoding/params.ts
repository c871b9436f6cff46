// Edge validation of geocoding inputs, shared by the single routes and the batch jobs. Every failure is a
// 400 BAD_REQUEST whose message names the parameter (prefixed with the job, e.g. "queries[3].q", in batch).
import { BadRequest } from "../../errors";
import { alpha2Of, knownCountryCode } from "../../backends/geocoder/countries";
import type { BBox } from "../../backends/geocoder/types";

export const MAX_TEXT_CHARS = 500;
export const DEFAULT_LANGUAGE = "en";

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const INTEGER = /^[+-]?\d+$/;
const LANGUAGE = /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/;

const bad = (name: string, message: string, details: Record<string, unknown> = {}) => new BadRequest(`${name} ${message}`, { parameter: name, ...details });

/** Search text: required, at most 500 characters, whitespace runs collapsed (that is the cache key). */
export function parseText(raw: unknown, name: string): string {
  if (raw === undefined || raw === null) throw bad(name, "is required");
  if (typeof raw !== "string") throw bad(name, "must be a string");
  // UTF-16 length bounds the character count from above: only long strings need counting.
  const chars = raw.length <= MAX_TEXT_CHARS ? raw.length : [...raw].length;
  if (chars > MAX_TEXT_CHARS) throw bad(name, `must be at most ${MAX_TEXT_CHARS} characters (got ${chars})`);
  // eslint-disable-next-line no-control-regex
  const text = raw.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
  if (!text) throw bad(name, "must not be empty");
  // The URL decoder puts U+FFFD for every byte run that is not UTF-8 ("%FF%FE"): such a search would
  // match nothing and echo garbage.
  if (text.includes("\uFFFD")) throw bad(name, "is not valid UTF-8: percent-encode the text's UTF-8 bytes");
  return text;
}

export function parseLimit(raw: unknown, name: string, max: number, fallback: number): number {
  if (raw === undefined || raw === null || raw === "") return fallback;
  const s = typeof raw === "number" ? String(raw) : raw;
  if (typeof s !== "string" || !INTEGER.test(s)) throw bad(name, `must be an integer from 1 to ${max}`);
  const n = Number(s);
  if (n < 1 || n > max) throw bad(name, `must be an integer from 1 to ${max} (got ${n})`);
  return n;
}

export function parseNumber(raw: unknown, name: string, min: number, max: number): number {
  if (raw === undefined || raw === null || raw === "") throw bad(name, "is required");
  let n: number;
  if (typeof raw === "number") n = raw;
  else if (typeof raw === "string" && NUMBER.test(raw)) n = Number(raw);
  else throw bad(name, `must be a decimal number from ${min} to ${max}, such as 47.37 (got '${String(raw).slice(0, 30)}')`);
  if (!Number.isFinite(n) || n < min || n > max) throw bad(name, `must be a number from ${min} to ${max} (got ${String(raw).slice(0, 30)})`);
  return n === 0 ? 0 : n;
}

export const parseLon = (raw: unknown, name: string) => parseNumber(raw, name, -180, 180);
export const parseLat = (raw: unknown, name: string) => parseNumber(raw, name, -90, 90);

export function parseLanguage(raw: unknown, name: string): string {
  if (raw === undefined || raw === null || raw === "") return DEFAULT_LANGUAGE;
  if (typeof raw !== "string" || raw.length > 35 || !LANGUAGE.test(raw.toLowerCase()))
    throw bad(name, "must be a language tag such as en, de or pt-BR");
  return canonicalTag(raw);
}

/** BCP 47's own case for a tag (RFC 5646 2.1.1): de-CH, zh-Hant-TW, es-419; echoed as the client expects. */
function canonicalTag(tag: string): string {
  return tag
    .toLowerCase()
    .split("-")
    .map((part, i) => (i === 0 ? part : part.length === 2 ? part.toUpperCase() : part.length === 4 ? part[0]!.toUpperCase() + part.slice(1) : part))
    .join("-");
}

/** `minLon,minLat,maxLon,maxLat` (or, in batch jobs, an array of four numbers) with min < max. */
export function parseBbox(raw: unknown, name: string): BBox | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const parts = Array.isArray(raw) ? raw.map((v) => (typeof v === "number" ? String(v) : v)) : typeof raw === "string" ? raw.split(",") : null;
  const usage = "must be minLon,minLat,maxLon,maxLat";
  if (!parts || parts.length !== 4 || !parts.every((p) => typeof p === "string" && NUMBER.test(p.trim()))) throw bad(name, `${usage} (four numbers separated by commas)`);
  const [minLon, minLat, maxLon, maxLat] = parts.map((p) => Number((p as string).trim())) as BBox;
  if (minLon < -180 || maxLon > 180) throw bad(name, `${usage}: longitudes must be from -180 to 180`);
  if (minLat < -90 || maxLat > 90) throw bad(name, `${usage}: latitudes must be from -90 to 90`);
  if (!(minLon < maxLon)) throw bad(name, `${usage}: minLon must be less than maxLon`);
  if (!(minLat < maxLat)) throw bad(name, `${usage}: minLat must be less than maxLat`);
  return [minLon, minLat, maxLon, maxLat];
}

/**
 * Comma-separated ISO 3166-1 alpha-2 or alpha-3 codes; upper-cased, kept in the form given (backends take
 * both), and a code naming a country already listed (CH after CHE) dropped.
 */
export function parseCountry(raw: unknown, name: string): string[] | undefined {
  if (raw === undefined || raw === null || raw === "") return undefined;
  const parts = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : null;
  if (!parts || parts.length === 0 || parts.length > 50) throw bad(name, "must be a comma-separated list of ISO 3166-1 alpha-2 or alpha-3 country codes");
  const out: string[] = [];
  const countries = new Set<string>();
  for (const p of parts) {
    const code = typeof p === "string" && /^[A-Za-z]{2,3}$/.test(p.trim()) ? knownCountryCode(p.trim()) : null;
    if (!code) throw bad(name, `must be a comma-separated list of ISO 3166-1 alpha-2 or alpha-3 country codes; ${JSON.stringify(String(p).slice(0, 20))} is not one`);
    const country = code.length === 2 ? code : alpha2Of(code)!;
    if (countries.has(country)) continue;
    countries.add(country);
    out.push(code);
  }
  return out;
}
