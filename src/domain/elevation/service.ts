// Elevation over the configured OpenTopoData-compatible dataset: point lookups and along-path profiles.
// Elevations are cached per point for a day (a repeated point never calls the backend), so lookups that
// overlap earlier ones only fetch what is new.
import type { AppContext } from "../../context";
import { BadRequest, NotFound, ServiceUnavailable } from "../../errors";
import { Lru } from "../../lru";
import type { ElevationBackend, LonLat } from "../../backends/elevation/opentopodata";
import { resample } from "./geodesy";

export const MAX_LOOKUP_POINTS = 100;
export const MAX_PATH_POINTS = 500;
export const MAX_SAMPLES = 500;
export const DEFAULT_SAMPLES = 100;
export const CACHE_TTL_MS = 86_400_000;

const NUMBER = "[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)";
const PAIR = new RegExp(`^\\s*(${NUMBER})\\s*,\\s*(${NUMBER})\\s*$`);

/** `lon,lat;lon,lat;...` from the path; a 400 names the first bad coordinate and its index. */
export function parsePoints(raw: string, opts: { min: number; max: number }): LonLat[] {
  let text = raw;
  if (text.includes("%")) {
    try {
      text = decodeURIComponent(text);
    } catch {
      throw new BadRequest("The coordinates in the path are not valid percent-encoding");
    }
  }
  const parts = text.split(";");
  if (parts.length > opts.max) throw new BadRequest(`At most ${opts.max} points are allowed (got ${parts.length})`, { parameter: "coordinates", count: parts.length });
  if (parts.length < opts.min) throw new BadRequest(`At least ${opts.min} points are needed, separated by semicolons (got ${parts.length})`, { parameter: "coordinates", count: parts.length });
  return parts.map((part, index) => {
    const shown = JSON.stringify(part.slice(0, 60));
    const m = PAIR.exec(part);
    if (!m) throw new BadRequest(`Point ${index} (${shown}) is not lon,lat in decimal degrees`, { parameter: "coordinates", index, coordinate: part.slice(0, 60) });
    const lon = Number(m[1]);
    const lat = Number(m[2]);
    if (lon < -180 || lon > 180) throw new BadRequest(`Point ${index} (${shown}): longitude must be from -180 to 180`, { parameter: "coordinates", index, coordinate: part.slice(0, 60) });
    if (lat < -90 || lat > 90) throw new BadRequest(`Point ${index} (${shown}): latitude must be from -90 to 90 (coordinates are lon,lat)`, { parameter: "coordinates", index, coordinate: part.slice(0, 60) });
    return { lon: lon === 0 ? 0 : lon, lat: lat === 0 ? 0 : lat };
  });
}

const round = (n: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(n * f) / f;
};
const location = (p: LonLat) => ({ lon: round(p.lon, 7), lat: round(p.lat, 7) });

/**
 * @param currentBackend the backend answering now, or null for none: ELEVATION chooses it, and the DEM
 * tileset of the embedded one can change while running (createServices passes backends/elevation/select.ts's)
 */
export function createElevationService(ctx: AppContext, currentBackend: () => ElevationBackend | null) {
  const cache = new Lru<number>({ ttlMs: CACHE_TTL_MS, maxEntries: 500_000, maxBytes: 64 * 1024 * 1024 });
  const attribution = (backend: ElevationBackend) => backend.attribution?.() ?? `Elevation data: ${backend.dataset} via OpenTopoData`;

  function requireBackend(): ElevationBackend {
    const backend = currentBackend();
    if (!backend)
      throw new ServiceUnavailable("ELEVATION_NOT_CONFIGURED", "Elevation is not set up on this server (its operator has not configured an elevation backend); your API key is fine");
    return backend;
  }

  /** Elevation per point, from the cache or the backend; 404 NO_ELEVATION_DATA lists uncovered indices. */
  async function elevations(backend: ElevationBackend, points: LonLat[], what: string): Promise<number[]> {
    // Keyed by the point rounded to 1e-7 degrees, the precision the backend is asked for, and by the
    // revision of the data (a newly published DEM version, or another DEM, must not answer with the
    // old one's heights).
    const revision = backend.revision?.() ?? "";
    const keys = points.map((p) => `${revision}${Math.round(p.lon * 1e7)}:${Math.round(p.lat * 1e7)}`);
    const values: (number | null | undefined)[] = keys.map((k) => cache.get(k));
    const missing = new Map<string, LonLat>();
    keys.forEach((k, i) => {
      if (values[i] === undefined && !missing.has(k)) missing.set(k, points[i]!);
    });
    if (missing.size) {
      const fetched = await backend.lookup([...missing.values()]);
      const byKey = new Map<string, number | null>();
      [...missing.keys()].forEach((k, i) => {
        const v = fetched[i] ?? null;
        byKey.set(k, v);
        if (v !== null) cache.set(k, v, 2 * k.length + 80);
      });
      keys.forEach((k, i) => {
        if (values[i] === undefined) values[i] = byKey.get(k) ?? null;
      });
    }
    const indices = values.flatMap((v, i) => (v === null || v === undefined ? [i] : []));
    if (indices.length)
      throw new NotFound(
        `No elevation data for ${indices.length} of ${points.length} ${what}: the dataset does not cover ${indices.length === 1 ? "that place" : "those places"}`,
        "NO_ELEVATION_DATA",
        { indices },
      );
    return values as number[];
  }

  async function lookup(points: LonLat[]): Promise<string> {
    const backend = requireBackend();
    const values = await elevations(backend, points, points.length === 1 ? "point" : "points");
    return JSON.stringify({
      elevations: points.map((p, i) => ({ location: location(p), elevation: values[i] })),
      units: "m",
      attribution: attribution(backend),
    });
  }

  /** `samples` as asked: undefined -> 100, above 500 (however many digits) -> 500 with a warning, below 2 -> 400. */
  function sampleCount(raw: string | undefined): { samples: number; warnings: string[] } {
    if (raw === undefined || raw === "") return { samples: DEFAULT_SAMPLES, warnings: [] };
    // Any number of digits: a huge count is as valid a request as 501 and is capped the same way.
    const digits = /^\+?0*(\d+)$/.exec(raw)?.[1];
    const requested = digits === undefined ? NaN : Number(digits);
    if (!(requested >= 2)) throw new BadRequest(`samples must be an integer of at least 2 (got ${JSON.stringify(raw.slice(0, 20))})`, { parameter: "samples" });
    if (requested > MAX_SAMPLES) {
      const shown = digits!.length > 20 ? `${digits!.slice(0, 20)}... (${digits!.length} digits)` : digits;
      return { samples: MAX_SAMPLES, warnings: [`samples=${shown} was capped at ${MAX_SAMPLES}`] };
    }
    return { samples: requested, warnings: [] };
  }

  async function along(path: LonLat[], requestedSamples: string | undefined): Promise<string> {
    const { samples, warnings } = sampleCount(requestedSamples);
    const backend = requireBackend();
    const { points, distances, total } = resample(path, samples);
    const values = await elevations(backend, points, "samples along the path");
    let ascent = 0;
    let descent = 0;
    for (let i = 1; i < values.length; i++) {
      const d = values[i]! - values[i - 1]!;
      if (d > 0) ascent += d;
      else descent -= d;
    }
    return JSON.stringify({
      profile: points.map((p, i) => ({ distance: round(distances[i]!, 2), location: location(p), elevation: values[i] })),
      summary: {
        samples,
        sample_spacing: round(total / (samples - 1), 2),
        distance: round(total, 2),
        min_elevation: Math.min(...values),
        max_elevation: Math.max(...values),
        start_elevation: values[0],
        end_elevation: values.at(-1),
        total_ascent: round(ascent, 2),
        total_descent: round(descent, 2),
      },
      units: "m",
      attribution: attribution(backend),
      warnings,
    });
  }

  return { lookup, along };
}

export type ElevationService = ReturnType<typeof createElevationService>;
