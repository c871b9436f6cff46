// Component health for /health/detailed. The core (database, storage) decides up or down; optional
// backends only make the whole "degraded", because the API and console keep working without them.
import type { AppContext } from "../../context";
import { cachedProbe, type ComponentStatus, type ProbeResult } from "../../backends/probe";
import { probeGeocoder } from "../../backends/geocoder/probe";
import { probeElevationBackend } from "../../backends/elevation/embedded-probe";
import type { Gazetteer } from "../../backends/geocoder/embedded/gazetteer";
import { probeElevation } from "../../backends/elevation/probe";
import { probeRouter } from "../../backends/routing/probe";
import { FULL_DISK_BYTES, LOW_DISK_BYTES, READ_ONLY_FIX, gib, storageFacts } from "./storage";
import { fileProblems, fileProblemsSummary } from "./published-files";
import type { UnreadableArchives } from "./unreadable-archives";

export interface DetailedHealth {
  status: "ok" | "degraded" | "down";
  version: string;
  uptime_s: number;
  components: Record<string, { status: ComponentStatus; latency_ms?: number; backend?: string; detail: string; fix?: string }>;
}

/** `embeddedGazetteer` is the running app's gazetteer when it answers geocoding (GEOCODER=embedded). */
export function createHealthService(ctx: AppContext, embeddedGazetteer: () => Gazetteer | undefined, unreadable: UnreadableArchives) {
  const geocoder = cachedProbe(() => probeGeocoder(ctx.config, embeddedGazetteer()));
  const openTopoData = cachedProbe(() => probeElevation(ctx.config));
  const elevation = () => probeElevationBackend(ctx.config, ctx.sqlite, openTopoData);
  const router = cachedProbe(() => probeRouter(ctx.config));
  const jobCounts = ctx.sqlite.query<{ state: string; n: number; oldest: number | null }, []>(
    "SELECT state, COUNT(*) AS n, MIN(created_at) AS oldest FROM jobs WHERE state IN ('queued','running') GROUP BY state",
  );

  function database(): ProbeResult {
    const started = performance.now();
    try {
      ctx.sqlite.query("SELECT 1").get();
      const ms = Math.round((performance.now() - started) * 100) / 100;
      return { status: "ok", latency_ms: ms, detail: "SQLite answers" };
    } catch (err) {
      return { status: "down", detail: `SQLite query failed: ${(err as Error).message}`, fix: "Check DATA_DIR/mapstead.db: run `mapstead preflight`, free disk space, and restore from a backup if the file is damaged" };
    }
  }

  function storage(): ProbeResult {
    const f = storageFacts(ctx.config.dataDir);
    if (!f.writable)
      return {
        status: "down",
        detail: f.readOnly ? "DATA_DIR is on a read-only file system (EROFS)" : `DATA_DIR is not writable (${f.error})`,
        fix: f.readOnly ? READ_ONLY_FIX : "Give DATA_DIR and everything in it to the user the service runs as (install.sh: sudo chown -R mapstead: /var/lib/mapstead)",
      };
    // A core that cannot write is down (503), whatever else it serves: a monitor keyed on the status sees it.
    if (f.freeBytes !== null && f.freeBytes < FULL_DISK_BYTES)
      return { status: "down", detail: `only ${gib(f.freeBytes)} free in DATA_DIR (under 100 MiB): writes (sign-ins, keys, uploads, imports) fail once it runs out`, fix: "Free disk space on the DATA_DIR volume or move DATA_DIR to a larger one, then delete unpublished tileset versions you no longer need" };
    // Those the tile reader failed to open here too: a damaged file whose header looks right.
    const problems = fileProblems(ctx.sqlite, ctx.config.dataDir);
    for (const p of unreadable.list()) if (!problems.archives.some((a) => a.path === p.path)) problems.archives.push(p);
    const missing = fileProblemsSummary(problems);
    if (missing) return { status: "degraded", ...missing };
    if (f.freeBytes === null) return { status: "ok", detail: "free space unknown" };
    if (f.freeBytes < LOW_DISK_BYTES) return { status: "degraded", detail: `only ${gib(f.freeBytes)} free in DATA_DIR (under 1 GiB)`, fix: "Free disk space on the DATA_DIR volume, or delete unpublished tileset versions you no longer need" };
    return { status: "ok", detail: `${gib(f.freeBytes)} free in DATA_DIR` };
  }

  function jobs(): ProbeResult {
    try {
      const rows = jobCounts.all();
      const queued = rows.find((r) => r.state === "queued");
      const running = rows.find((r) => r.state === "running")?.n ?? 0;
      const waitingS = queued?.oldest ? Math.round((Date.now() - queued.oldest) / 1000) : 0;
      const detail = `${running} running, ${queued?.n ?? 0} queued`;
      if (waitingS > 600) return { status: "degraded", detail: `${detail}; the oldest has waited ${waitingS} s`, fix: "Large imports run one at a time: wait, or delete queued versions you do not need; if nothing runs, restart the service" };
      return { status: "ok", detail };
    } catch (err) {
      return { status: "down", detail: `job queue unreadable: ${(err as Error).message}`, fix: "Run `mapstead migrate`, then `mapstead preflight`" };
    }
  }

  async function detailed(): Promise<DetailedHealth> {
    const [geo, elev, route] = await Promise.all([geocoder(), elevation(), router()]);
    // A component that is not ok says how to fix it, as the preflight does; an ok one carries no fix.
    const strip = ({ fix, ...rest }: ProbeResult) => (rest.status !== "ok" && fix ? { ...rest, fix } : rest);
    const components = { database: strip(database()), storage: strip(storage()), jobs: strip(jobs()), geocoder: strip(geo), elevation: strip(elev), router: strip(route) };
    const coreDown = components.database.status === "down" || components.storage.status === "down";
    const anyBad = Object.values(components).some((c) => c.status === "degraded" || c.status === "down");
    return {
      status: coreDown ? "down" : anyBad ? "degraded" : "ok",
      version: ctx.version,
      uptime_s: Math.round((Date.now() - ctx.startedAt) / 1000),
      components,
    };
  }

  return { detailed, geocoder, elevation, router, database, storage };
}

export type HealthService = ReturnType<typeof createHealthService>;
