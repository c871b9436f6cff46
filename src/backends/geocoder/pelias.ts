// Pelias API adapter: CONTRACT.md's parameter mapping on the way out, the contract's FeatureCollection
// on the way back. Bun's fetch keeps connections to the backend alive between calls.
import type { Logger } from "../../log";
import { formatCoordinate } from "../coordinates";
import { getUpstreamJson, upstreamBadAnswer, type UpstreamTarget } from "../upstream";
import { alpha2Of, alpha3Of } from "./countries";
import type { AutocompleteQuery, BBox, ForwardQuery, GeocodeAnswer, Geocoder, Place, PlaceProperties, ReverseQuery } from "./types";

function queryString(params: [string, string | number | undefined][]): string {
  return params
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === "number" ? formatCoordinate(v) : v!)}`)
    .join("&");
}

export function peliasForwardUrl(base: string, q: ForwardQuery): string {
  return `${base}/search?${queryString([
    ["text", q.q],
    ["size", String(q.limit)],
    ["lang", q.language],
    ["boundary.rect.min_lon", q.bbox?.[0]],
    ["boundary.rect.min_lat", q.bbox?.[1]],
    ["boundary.rect.max_lon", q.bbox?.[2]],
    ["boundary.rect.max_lat", q.bbox?.[3]],
    ["boundary.country", q.country?.join(",")],
  ])}`;
}

export function peliasReverseUrl(base: string, q: ReverseQuery): string {
  return `${base}/reverse?${queryString([
    ["point.lon", q.lon],
    ["point.lat", q.lat],
    ["size", String(q.limit)],
    ["lang", q.language],
  ])}`;
}

export function peliasAutocompleteUrl(base: string, q: AutocompleteQuery): string {
  return `${base}/autocomplete?${queryString([
    ["text", q.text],
    ["size", String(q.limit)],
    ["lang", q.language],
    ["focus.point.lon", q.focus?.lon],
    ["focus.point.lat", q.focus?.lat],
  ])}`;
}

const STRING_PROPS = ["gid", "layer", "source", "name", "label", "housenumber", "street", "postalcode", "locality", "region", "region_a", "country"] as const;

const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function normalizeFeature(raw: unknown): Place | null {
  if (!raw || typeof raw !== "object") return null;
  const f = raw as { geometry?: { type?: string; coordinates?: unknown }; bbox?: unknown; properties?: Record<string, unknown> };
  const coords = f.geometry?.coordinates;
  if (f.geometry?.type !== "Point" || !Array.isArray(coords) || !isFiniteNumber(coords[0]) || !isFiniteNumber(coords[1])) return null;
  const src = f.properties && typeof f.properties === "object" ? f.properties : {};
  const props: PlaceProperties = {};
  for (const k of STRING_PROPS) {
    const v = src[k];
    if (typeof v === "string" && v.trim() !== "") props[k] = v;
    else if (typeof v === "number" && Number.isFinite(v) && (k === "housenumber" || k === "postalcode")) props[k] = String(v);
  }
  if (isFiniteNumber(src.confidence)) props.confidence = src.confidence;
  if (isFiniteNumber(src.distance)) props.distance = src.distance;
  const a3 = typeof src.country_a === "string" && /^[A-Za-z]{3}$/.test(src.country_a) ? src.country_a.toUpperCase() : undefined;
  const a2 = typeof src.country_code === "string" && /^[A-Za-z]{2}$/.test(src.country_code) ? src.country_code.toUpperCase() : undefined;
  const code2 = a2 ?? (a3 ? alpha2Of(a3) ?? undefined : undefined);
  const code3 = a3 ?? (a2 ? alpha3Of(a2) ?? undefined : undefined);
  if (code2) props.country_code = code2;
  if (code3) props.country_a = code3;
  const geometry: Place["geometry"] = { type: "Point", coordinates: [coords[0], coords[1]] };
  const bbox = Array.isArray(f.bbox) && f.bbox.length === 4 && f.bbox.every(isFiniteNumber) ? (f.bbox as BBox) : undefined;
  return bbox ? { type: "Feature", geometry, bbox, properties: props } : { type: "Feature", geometry, properties: props };
}

/** Pelias JSON -> contract features; throws UPSTREAM_ERROR for anything that is not a FeatureCollection. */
export function normalizePelias(json: unknown, target: UpstreamTarget, url: string): GeocodeAnswer {
  const body = json as { type?: unknown; features?: unknown; geocoding?: { warnings?: unknown; errors?: unknown } } | null;
  if (!body || typeof body !== "object" || body.type !== "FeatureCollection" || !Array.isArray(body.features))
    throw upstreamBadAnswer(target, "answered JSON that is not a GeoJSON FeatureCollection", url);
  const errors = body.geocoding?.errors;
  if (Array.isArray(errors) && errors.length) throw upstreamBadAnswer(target, `reported an error (${String(errors[0]).slice(0, 200)})`, url);
  const features: Place[] = [];
  const sources = new Set<string>();
  for (const raw of body.features) {
    const place = normalizeFeature(raw);
    if (!place) continue;
    features.push(place);
    if (place.properties.source) sources.add(place.properties.source);
  }
  const w = body.geocoding?.warnings;
  const warnings = Array.isArray(w) ? w.filter((x): x is string => typeof x === "string").map((x) => x.slice(0, 500)) : [];
  return { features, warnings, sources: [...sources].sort() };
}

export function createPeliasGeocoder(opts: { baseUrl: string; timeoutMs: number; log: Logger }): Geocoder {
  const target: UpstreamTarget = { label: "geocoding backend", unavailableCode: "GEOCODER_UNAVAILABLE", timeoutMs: opts.timeoutMs, log: opts.log };
  const call = async (url: string) => normalizePelias(await getUpstreamJson(url, target), target, url);
  return {
    forward: (q) => call(peliasForwardUrl(opts.baseUrl, q)),
    reverse: (q) => call(peliasReverseUrl(opts.baseUrl, q)),
    autocomplete: (q) => call(peliasAutocompleteUrl(opts.baseUrl, q)),
  };
}
