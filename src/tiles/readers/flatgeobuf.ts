// FlatGeobuf through the `flatgeobuf` package, streamed from the file. WGS84 (EPSG:4326, or no CRS)
// and Web Mercator (EPSG:3857, unprojected here) are accepted; other CRSs are refused by name.
import { LONLAT_AS_WGS84 } from "./lonlat-datums";
import { deserialize } from "flatgeobuf/lib/mjs/geojson.js";
import type { HeaderMeta } from "flatgeobuf/lib/mjs/header-meta.js";
import { InvalidSource } from "../errors";
import { unprojectGeometry } from "./mercator";
import type { RawFeature, ReadProgress } from "./types";

export async function* readFlatgeobuf(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  let mercator = false;
  let declared = 0;
  let crsProblem: string | null = null;
  const counted = Bun.file(path)
    .stream()
    .pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          progress.bytes += chunk.length;
          ctl.enqueue(chunk);
        },
      }),
    );
  const headerMetaFn = (meta: HeaderMeta) => {
    declared = meta.featuresCount;
    const code = meta.crs?.code ?? 0;
    if (code === 3857 || code === 900913) mercator = true;
    else if (code !== 0 && !LONLAT_AS_WGS84.has(code))
      crsProblem = `${label}: coordinates use ${meta.crs?.org ?? "EPSG"}:${code}${meta.crs?.name ? ` (${meta.crs.name})` : ""}; reproject to WGS84 (EPSG:4326) or Web Mercator (EPSG:3857) first`;
  };
  let n = 0;
  try {
    for await (const f of deserialize(counted as ReadableStream, { headerMetaFn })) {
      if (crsProblem) throw new InvalidSource(crsProblem);
      n++;
      const geometry = mercator ? unprojectGeometry(f.geometry) : f.geometry;
      yield { geometry, properties: (f.properties as Record<string, unknown>) ?? null, where: `feature ${n}` };
    }
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: FlatGeobuf data is damaged or truncated after feature ${n}: ${(err as Error).message}; upload it again`);
  }
  if (crsProblem) throw new InvalidSource(crsProblem);
  if (declared > 0 && n < declared) throw new InvalidSource(`${label}: the FlatGeobuf header announces ${declared} features but the data ends after ${n}: the file is truncated; upload it again`);
}
