// GDAL's command-line tools as a real desktop-GIS client (QGIS reads WMTS, XYZ, MVT and MBTiles through
// GDAL). They run asynchronously: the app under test answers in this same process, so a blocking spawn
// would never get its tiles. The GDAL cache and config are kept out of the user's home, and a timeout
// stops a hung fetch from hanging the test.
import { join } from "node:path";
import { tempDir } from "./temp";

export interface GdalRun {
  code: number;
  stdout: string;
  stderr: string;
}

let home: string | null = null;

/** Runs a GDAL tool (gdalinfo, gdal_translate, ogrinfo, ogr2ogr) with `args`; `env` adds config options. */
export async function gdal(tool: string, args: string[], env: Record<string, string> = {}): Promise<GdalRun> {
  home ??= tempDir("mapstead-gdal-");
  const proc = Bun.spawn([tool, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      HOME: home,
      // The WMS/TMS driver's disk cache would otherwise outlive the test (and answer the next one).
      GDAL_DEFAULT_WMS_CACHE_PATH: join(home, "wms-cache"),
      GDAL_HTTP_TIMEOUT: "20",
      CPL_DEBUG: "OFF",
      ...env,
    },
  });
  const timer = setTimeout(() => proc.kill(), 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Like gdal() but throws with GDAL's own words unless the tool exits 0. */
export async function gdalOk(tool: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await gdal(tool, args, env);
  if (r.code !== 0) throw new Error(`${tool} ${args.join(" ")} exited ${r.code}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Web Mercator metres of a lon/lat, as GDAL's EPSG:3857 georeferencing has them. */
export function mercator(lon: number, lat: number): [number, number] {
  const R = 6378137;
  return [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];
}
