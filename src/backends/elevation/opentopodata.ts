// OpenTopoData adapter: `{url}?locations=lat,lon|lat,lon&interpolation=bilinear`, at most 100
// locations a call (the server's default limit), chunks fetched a few at a time, answers in input order.
import type { Logger } from "../../log";
import { formatCoordinate } from "../coordinates";
import { getUpstreamJson, upstreamBadAnswer, type UpstreamTarget } from "../upstream";

export interface LonLat {
  lon: number;
  lat: number;
}

export interface ElevationBackend {
  /** metres above sea level per point, null where the dataset has no coverage */
  lookup(points: LonLat[]): Promise<(number | null)[]>;
  /** name of the dataset, for attribution */
  dataset: string;
  /** the attribution line answers carry; default "Elevation data: {dataset} via OpenTopoData" */
  attribution?(): string;
  /** changes when the data behind the backend is replaced, so cached heights of the old data are not served */
  revision?(): string;
}

export const MAX_LOCATIONS_PER_CALL = 100;
const PARALLEL_CALLS = 4;

export function openTopoDataUrl(base: string, points: LonLat[]): string {
  return `${base}?locations=${points.map((p) => `${formatCoordinate(p.lat)},${formatCoordinate(p.lon)}`).join("|")}&interpolation=bilinear`;
}

/** The dataset name is the last path segment of the configured URL (…/v1/srtm30m -> srtm30m). */
export function datasetName(base: string): string {
  const segments = new URL(base).pathname.split("/").filter(Boolean);
  return segments.at(-1) ?? "elevation";
}

export function createOpenTopoData(opts: { baseUrl: string; timeoutMs: number; log: Logger }): ElevationBackend {
  const target: UpstreamTarget = { label: "elevation backend", unavailableCode: "ELEVATION_UNAVAILABLE", timeoutMs: opts.timeoutMs, log: opts.log };

  async function chunk(points: LonLat[]): Promise<(number | null)[]> {
    const url = openTopoDataUrl(opts.baseUrl, points);
    const body = (await getUpstreamJson(url, target)) as { results?: unknown; status?: unknown } | null;
    const results = body && typeof body === "object" ? body.results : undefined;
    if (!Array.isArray(results)) throw upstreamBadAnswer(target, "answered JSON without a results array", url);
    if (results.length !== points.length) throw upstreamBadAnswer(target, `answered ${results.length} results for ${points.length} locations`, url);
    return results.map((r) => {
      const e = (r as { elevation?: unknown } | null)?.elevation;
      if (e === null) return null;
      if (typeof e !== "number" || !Number.isFinite(e)) throw upstreamBadAnswer(target, "answered a result without a numeric elevation", url);
      return e;
    });
  }

  return {
    dataset: datasetName(opts.baseUrl),
    async lookup(points) {
      const chunks: LonLat[][] = [];
      for (let i = 0; i < points.length; i += MAX_LOCATIONS_PER_CALL) chunks.push(points.slice(i, i + MAX_LOCATIONS_PER_CALL));
      const out: (number | null)[][] = new Array(chunks.length);
      let next = 0;
      const worker = async () => {
        while (next < chunks.length) {
          const i = next++;
          out[i] = await chunk(chunks[i]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_CALLS, chunks.length) }, worker));
      return out.flat();
    },
  };
}
