// The only reader of process.env. Settings come from the environment and are overridden by the same
// names as --kebab-case flags; the result is validated once, frozen, and passed to whoever needs it.
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { isSlug } from "./domain/orgs/slug";
import { environmentNotes, readSettingsFile } from "./settings-file";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type GeocoderBackend = "pelias" | "embedded" | "off";
export type ElevationMode = "auto" | "opentopodata" | "embedded" | "off";
const ELEVATION_MODES: ElevationMode[] = ["auto", "opentopodata", "embedded", "off"];

export type RoutingEngine = "osrm" | "valhalla";
export const ROUTING_PROFILES = ["driving", "walking", "cycling"] as const;
export type RoutingProfile = (typeof ROUTING_PROFILES)[number];

/** What each engine's stock setups call the three profiles (OSRM's bundled car/foot/bicycle Lua profiles, Valhalla's costings). */
export const DEFAULT_ROUTING_PROFILES: Record<RoutingEngine, Record<RoutingProfile, string>> = {
  osrm: { driving: "car", walking: "foot", cycling: "bike" },
  valhalla: { driving: "auto", walking: "pedestrian", cycling: "bicycle" },
};

export interface Config {
  /** PUBLIC_URL without a trailing slash: an origin, or an origin and a path prefix */
  publicUrl: string;
  /**
   * PUBLIC_URL's path ("/maps"), "" for a bare origin: what a reverse proxy puts in front of Mapstead's
   * routes. Every root-relative URL Mapstead writes starts with it; the routes themselves do not move.
   */
  basePath: string;
  /** true when PUBLIC_URL was not set and was derived from PORT */
  publicUrlDefaulted: boolean;
  host: string;
  port: number;
  dataDir: string;
  geocoderUrl: string | null;
  /** which backend answers geocoding: GEOCODER resolved (`auto` becomes pelias or embedded) */
  geocoder: GeocoderBackend;
  elevationUrl: string | null;
  geocoderTimeoutMs: number;
  elevationTimeoutMs: number;
  /** which backend answers the elevation API; `auto` picks OpenTopoData, else the embedded DEM, else none */
  elevation: ElevationMode;
  /** owner/slug of the raster-DEM tileset the embedded elevation samples */
  elevationTileset: { owner: string; slug: string } | null;
  routingUrl: string | null;
  routingEngine: RoutingEngine;
  routingTimeoutMs: number;
  /** our profile name -> the backend's profile (OSRM) or costing (Valhalla) */
  routingProfiles: Readonly<Record<RoutingProfile, string>>;
  maxUploadMb: number;
  /** memory the tiler aims to stay within while cutting tiles, in MiB */
  tilingMemoryMb: number;
  rateLimitPerMinute: number;
  trustProxy: boolean;
  allowedHosts: string[];
  logLevel: LogLevel;
  /** render worker threads of each HTTP worker process: RENDER_WORKERS, else the cores shared among WORKERS */
  renderWorkers: number;
  renderQueue: number;
  renderTimeoutMs: number;
  /** raster tiles drawn per minute for one address without a key or session (0: no limit) */
  anonymousRendersPerMinute: number;
  /** HTTP worker processes sharing the port; 1 serves from the one process */
  workers: number;
  /** answer X-Mapstead-Worker naming the worker process (debugging, cluster tests) */
  workerHeader: boolean;
}

/** A setting that failed validation: start-up prints `message` and exits 2. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

interface SettingSpec {
  name: string;
  accepts: string;
  default?: string;
  description: string;
}

export const SETTINGS: SettingSpec[] = [
  { name: "PUBLIC_URL", accepts: "an http(s) origin, scheme://host[:port], optionally with a path prefix (/maps) whose first segment is none of Mapstead's own (/api, /tiles, ...), without a query or fragment", description: "public URL every absolute URL starts with; a path (https://example.org/maps) for a reverse proxy that publishes Mapstead under it (default http://localhost:{PORT})" },
  { name: "HOST", accepts: "an IP address or host name", default: "0.0.0.0", description: "listen address" },
  { name: "PORT", accepts: "an integer from 0 to 65535", default: "8080", description: "listen port (0 picks a free one)" },
  { name: "DATA_DIR", accepts: "a directory path", default: "./data", description: "SQLite database, tile archives, fonts, sprites, uploads" },
  { name: "GEOCODER_INTERNAL_URL", accepts: "an absolute http(s) URL, e.g. http://pelias-api:4000/v1", description: "Pelias-compatible geocoder, with its version prefix" },
  { name: "ELEVATION_INTERNAL_URL", accepts: "an absolute http(s) URL, e.g. http://opentopodata:5000/v1/srtm30m", description: "OpenTopoData-compatible dataset endpoint" },
  {
    name: "ELEVATION",
    accepts: "one of auto, opentopodata, embedded, off",
    default: "auto",
    description: "elevation backend: auto = OpenTopoData when ELEVATION_INTERNAL_URL is set, else the embedded DEM when one is chosen (ELEVATION_TILESET, mapstead elevation use or the console)",
  },
  {
    name: "ELEVATION_TILESET",
    accepts: "owner/slug of a raster-DEM tileset, e.g. acme/srtm",
    description: "DEM tileset (its published version) that embedded elevation samples; when set, it wins over the one chosen with mapstead elevation use or in the console",
  },
  { name: "GEOCODER", accepts: "one of auto, pelias, embedded, off", default: "auto", description: "geocoding backend: auto uses Pelias when GEOCODER_INTERNAL_URL is set, else the embedded gazetteer" },
  { name: "GEOCODER_TIMEOUT_MS", accepts: "an integer from 100 to 120000", default: "5000", description: "timeout per geocoder call" },
  { name: "ELEVATION_TIMEOUT_MS", accepts: "an integer from 100 to 120000", default: "5000", description: "timeout per elevation call" },
  { name: "ROUTING_INTERNAL_URL", accepts: "an absolute http(s) URL, e.g. http://osrm:5000 or http://valhalla:8002", description: "OSRM or Valhalla server base URL" },
  { name: "ROUTING_ENGINE", accepts: "osrm or valhalla", default: "osrm", description: "which engine ROUTING_INTERNAL_URL is" },
  { name: "ROUTING_TIMEOUT_MS", accepts: "an integer from 100 to 120000", default: "5000", description: "timeout per routing call" },
  {
    name: "ROUTING_PROFILES",
    accepts: "comma-separated profile=name pairs for driving, walking, cycling, e.g. driving=car,walking=foot",
    default: "",
    description: "the backend's profile (OSRM) or costing (Valhalla) per profile; unnamed ones keep the engine's default (OSRM car, foot, bike; Valhalla auto, pedestrian, bicycle)",
  },
  { name: "MAX_UPLOAD_MB", accepts: "an integer from 1 to 1048576", default: "2048", description: "largest accepted upload in MiB" },
  { name: "TILING_MEMORY_MB", accepts: "an integer from 32 to 65536", default: "256", description: "memory the tiler aims to stay within per import, in MiB (bigger cuts large inputs faster; one feature may have a sixteenth of it in text)" },
  { name: "RATE_LIMIT_PER_MINUTE", accepts: "an integer from 1 to 10000000", default: "600", description: "default requests per minute per key and service group" },
  { name: "TRUST_PROXY", accepts: "true or false", default: "false", description: "take the client address from the last X-Forwarded-For entry (the one your proxy adds); URLs still start with PUBLIC_URL" },
  { name: "ALLOWED_HOSTS", accepts: "comma-separated host names", default: "", description: "accepted for compatibility, no effect: every URL Mapstead writes starts with PUBLIC_URL, never with a Host or X-Forwarded-Host header" },
  { name: "RENDER_WORKERS", accepts: "an integer from 1 to 64", description: "worker threads drawing static images and raster tiles, per HTTP worker process (default: the CPU cores divided among WORKERS, at least 1)" },
  { name: "RENDER_QUEUE", accepts: "an integer from 0 to 10000", default: "64", description: "renders waiting for a worker before 503 RENDER_BUSY" },
  { name: "RENDER_TIMEOUT_MS", accepts: "an integer from 100 to 120000", default: "15000", description: "time limit of one render (then 503 RENDER_TIMEOUT)" },
  { name: "ANONYMOUS_RENDERS_PER_MINUTE", accepts: "an integer from 0 to 10000000", default: "600", description: "raster tiles drawn per minute for one client address without a key or session (tiles served from the render caches do not count; 0 = no limit); over it, 429 RATE_LIMITED" },
  { name: "LOG_LEVEL", accepts: "one of debug, info, warn, error", default: "info", description: "JSON log lines on stdout at or above this level" },
  { name: "WORKERS", accepts: "an integer from 1 to 256", default: String(availableParallelism()), description: "HTTP worker processes sharing the port (the default is the number of cores, here; 1 = one process)" },
  { name: "WORKER_HEADER", accepts: "true or false", default: "false", description: "answer X-Mapstead-Worker naming the worker that served the request (debugging)" },
];

/**
 * Every HTTP worker process has its own render pool: by default they share the cores between them
 * (WORKERS=4 on 8 cores: 2 threads each) instead of each starting one thread per core.
 */
export function defaultRenderWorkers(workers: number, cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / workers));
}

export const kebab = (name: string) => name.toLowerCase().replaceAll("_", "-");

function integer(name: string, raw: string, min: number, max: number, accepts: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is invalid: expected ${accepts}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `${name}=${raw} is out of range: expected ${accepts}`);
  return n;
}

function httpUrl(name: string, raw: string, accepts: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is not a URL: expected ${accepts}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} must use http or https: expected ${accepts}`);
  if (url.username || url.password) {
    // The message goes to the terminal and the journal: it names where the credentials are, not them.
    const shown = `${url.protocol}//***@${url.host}${url.pathname}`;
    throw new ConfigError(name, `${name}=${JSON.stringify(shown)} must not carry credentials (user:password@): expected ${accepts}`);
  }
  if (url.search || url.hash)
    throw new ConfigError(name, `${name}=${JSON.stringify(raw)} must not carry a query or fragment: expected ${accepts}`);
  return url.toString().replace(/\/+$/, "");
}

/**
 * The first path segments of Mapstead's own routes. A PUBLIC_URL path starting with one of them would
 * make a request for a prefixed URL and one for a route of the same name look alike (Mapstead also
 * answers requests whose path still carries the prefix). test/config checks this list against the app.
 */
export const ROUTE_SEGMENTS = ["api", "console", "docs", "elevation", "favicon.ico", "fonts", "geocoding", "health", "metrics", "openapi.json", "routing", "setup", "static", "styles", "tilequery", "tiles"] as const;

/**
 * PUBLIC_URL: an origin, or an origin and the path a reverse proxy publishes Mapstead under. The path's
 * segments are limited to characters that need no escaping anywhere Mapstead writes them (HTML, JS,
 * cookies, headers).
 */
function publicUrlSetting(raw: string): { publicUrl: string; basePath: string } {
  const accepts = SETTINGS.find((s) => s.name === "PUBLIC_URL")!.accepts;
  const url = httpUrl("PUBLIC_URL", raw, accepts);
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, "");
  if (path === "") return { publicUrl: parsed.origin, basePath: "" };
  const segments = path.slice(1).split("/");
  if (segments.some((s) => !/^[A-Za-z0-9._~-]+$/.test(s) || s === "." || s === ".."))
    throw new ConfigError("PUBLIC_URL", `PUBLIC_URL=${JSON.stringify(raw)} has a path (${path}) with an empty segment or a character other than letters, digits and -._~: expected ${accepts}`);
  const clash = ROUTE_SEGMENTS.find((r) => r === segments[0]!.toLowerCase());
  if (clash)
    throw new ConfigError("PUBLIC_URL", `PUBLIC_URL=${JSON.stringify(raw)} has a path (${path}) that starts like Mapstead's own /${clash} routes, so a request under it could not be told from one for /${clash}; choose another prefix, e.g. /maps`);
  return { publicUrl: parsed.origin + path, basePath: path };
}

function bool(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off", ""].includes(v)) return false;
  throw new ConfigError(name, `${name}=${JSON.stringify(raw)} is invalid: expected true or false`);
}

function geocoderBackend(raw: string, url: string | null, accepts: string): GeocoderBackend {
  const v = raw.trim().toLowerCase();
  if (v === "auto") return url ? "pelias" : "embedded";
  if (v === "pelias" && !url) throw new ConfigError("GEOCODER", "GEOCODER=pelias needs GEOCODER_INTERNAL_URL (the Pelias API base URL, e.g. http://pelias-api:4000/v1); set it, or use GEOCODER=auto or embedded");
  if (v === "pelias" || v === "embedded" || v === "off") return v;
  throw new ConfigError("GEOCODER", `GEOCODER=${JSON.stringify(raw)} is invalid: expected ${accepts}`);
}

function routingEngine(raw: string): RoutingEngine {
  const v = raw.trim().toLowerCase();
  if (v !== "osrm" && v !== "valhalla") throw new ConfigError("ROUTING_ENGINE", `ROUTING_ENGINE=${JSON.stringify(raw)} is invalid: expected osrm or valhalla`);
  return v;
}

function routingProfiles(raw: string, engine: RoutingEngine, accepts: string): Record<RoutingProfile, string> {
  const profiles = { ...DEFAULT_ROUTING_PROFILES[engine] };
  for (const pair of raw.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*([A-Za-z0-9_.-]{1,64})$/.exec(pair);
    if (!m || !(ROUTING_PROFILES as readonly string[]).includes(m[1]!))
      throw new ConfigError("ROUTING_PROFILES", `ROUTING_PROFILES entry ${JSON.stringify(pair)} is invalid: expected ${accepts}`);
    profiles[m[1] as RoutingProfile] = m[2]!;
  }
  return profiles;
}

/**
 * Builds the configuration from environment variables and flag overrides
 * (flags keyed by SETTING name, already mapped from --kebab-case).
 */
export function loadConfig(env: Record<string, string | undefined>, overrides: Record<string, string> = {}): Readonly<Config> {
  const raw = (name: string): string | undefined => {
    const v = overrides[name] ?? env[name];
    return v === undefined || v === "" ? undefined : v;
  };
  const spec = (name: string) => SETTINGS.find((s) => s.name === name)!;
  const value = (name: string) => raw(name) ?? spec(name).default ?? "";

  const port = integer("PORT", value("PORT"), 0, 65535, spec("PORT").accepts);
  const host = value("HOST").trim();
  if (!host || /\s/.test(host)) throw new ConfigError("HOST", `HOST=${JSON.stringify(host)} is invalid: expected ${spec("HOST").accepts}`);
  const publicRaw = raw("PUBLIC_URL");
  const { publicUrl, basePath } = publicRaw ? publicUrlSetting(publicRaw) : { publicUrl: `http://localhost:${port}`, basePath: "" };
  const optionalUrl = (name: string) => {
    const v = raw(name);
    return v ? httpUrl(name, v, spec(name).accepts) : null;
  };
  const logLevel = value("LOG_LEVEL").trim().toLowerCase();
  if (!["debug", "info", "warn", "error"].includes(logLevel))
    throw new ConfigError("LOG_LEVEL", `LOG_LEVEL=${JSON.stringify(logLevel)} is invalid: expected ${spec("LOG_LEVEL").accepts}`);
  const allowedHosts = value("ALLOWED_HOSTS")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const h of allowedHosts)
    if (!/^[a-z0-9.-]+(:\d+)?$/.test(h))
      throw new ConfigError("ALLOWED_HOSTS", `ALLOWED_HOSTS entry ${JSON.stringify(h)} is invalid: expected ${spec("ALLOWED_HOSTS").accepts}`);
  const dataDir = value("DATA_DIR").trim();
  if (!dataDir) throw new ConfigError("DATA_DIR", `DATA_DIR is empty: expected ${spec("DATA_DIR").accepts}`);

  const elevation = value("ELEVATION").trim().toLowerCase() as ElevationMode;
  if (!ELEVATION_MODES.includes(elevation)) throw new ConfigError("ELEVATION", `ELEVATION=${JSON.stringify(elevation)} is invalid: expected ${spec("ELEVATION").accepts}`);
  const tilesetRaw = raw("ELEVATION_TILESET")?.trim();
  const [owner, slug, extra] = tilesetRaw?.split("/") ?? [];
  if (tilesetRaw !== undefined && (extra !== undefined || !isSlug(owner ?? "") || !isSlug(slug ?? "")))
    throw new ConfigError("ELEVATION_TILESET", `ELEVATION_TILESET=${JSON.stringify(tilesetRaw)} is invalid: expected ${spec("ELEVATION_TILESET").accepts}`);
  const elevationUrl = optionalUrl("ELEVATION_INTERNAL_URL");
  if (elevation === "opentopodata" && !elevationUrl) throw new ConfigError("ELEVATION", "ELEVATION=opentopodata needs ELEVATION_INTERNAL_URL (the OpenTopoData dataset URL)");
  const geocoderUrl = optionalUrl("GEOCODER_INTERNAL_URL");
  const geocoder = geocoderBackend(value("GEOCODER"), geocoderUrl, spec("GEOCODER").accepts);

  const ms = (name: string) => integer(name, value(name), 100, 120000, spec(name).accepts);
  const engine = routingEngine(value("ROUTING_ENGINE"));
  const workers = integer("WORKERS", value("WORKERS"), 1, 256, spec("WORKERS").accepts);
  return Object.freeze({
    publicUrl,
    basePath,
    publicUrlDefaulted: !publicRaw,
    host,
    port,
    dataDir: resolve(dataDir),
    geocoderUrl,
    geocoder,
    elevationUrl,
    geocoderTimeoutMs: ms("GEOCODER_TIMEOUT_MS"),
    elevationTimeoutMs: ms("ELEVATION_TIMEOUT_MS"),
    elevation,
    elevationTileset: tilesetRaw ? { owner: owner!, slug: slug! } : null,
    routingUrl: optionalUrl("ROUTING_INTERNAL_URL"),
    routingEngine: engine,
    routingTimeoutMs: ms("ROUTING_TIMEOUT_MS"),
    routingProfiles: Object.freeze(routingProfiles(value("ROUTING_PROFILES"), engine, spec("ROUTING_PROFILES").accepts)),
    maxUploadMb: integer("MAX_UPLOAD_MB", value("MAX_UPLOAD_MB"), 1, 1048576, spec("MAX_UPLOAD_MB").accepts),
    tilingMemoryMb: integer("TILING_MEMORY_MB", value("TILING_MEMORY_MB"), 32, 65536, spec("TILING_MEMORY_MB").accepts),
    rateLimitPerMinute: integer("RATE_LIMIT_PER_MINUTE", value("RATE_LIMIT_PER_MINUTE"), 1, 10_000_000, spec("RATE_LIMIT_PER_MINUTE").accepts),
    trustProxy: bool("TRUST_PROXY", value("TRUST_PROXY")),
    allowedHosts,
    logLevel: logLevel as LogLevel,
    renderWorkers: raw("RENDER_WORKERS") === undefined ? defaultRenderWorkers(workers) : integer("RENDER_WORKERS", value("RENDER_WORKERS"), 1, 64, spec("RENDER_WORKERS").accepts),
    renderQueue: integer("RENDER_QUEUE", value("RENDER_QUEUE"), 0, 10000, spec("RENDER_QUEUE").accepts),
    renderTimeoutMs: ms("RENDER_TIMEOUT_MS"),
    anonymousRendersPerMinute: integer("ANONYMOUS_RENDERS_PER_MINUTE", value("ANONYMOUS_RENDERS_PER_MINUTE"), 0, 10_000_000, spec("ANONYMOUS_RENDERS_PER_MINUTE").accepts),
    workers,
    workerHeader: bool("WORKER_HEADER", value("WORKER_HEADER")),
  });
}

/**
 * The settings a command starts with: the installed settings file (settings-file.ts) under the process
 * environment, which wins; kept here so no other module touches process.env. Its notes are for stderr.
 */
export function processEnv(): { env: Record<string, string | undefined>; notes: string[] } {
  const known = new Set(SETTINGS.map((s) => s.name));
  const file = readSettingsFile(process.env.MAPSTEAD_ENV_FILE, known);
  return { env: { ...file.values, ...process.env }, notes: [...file.notes, ...environmentNotes(Object.keys(process.env), known)] };
}
