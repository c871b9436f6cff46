// Settings parsing: every CONTRACT.md setting, its default, its flag form, and what a bad value says.
import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { ConfigError, ROUTE_SEGMENTS, SETTINGS, defaultRenderWorkers, kebab, loadConfig } from "../../src/config";
import { splitSettingFlags, UsageError } from "../../src/cli/args";

function configError(env: Record<string, string>, overrides: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe("defaults", () => {
  test("an empty environment gives the CONTRACT.md defaults", () => {
    const c = loadConfig({});
    expect(c).toEqual({
      publicUrl: "http://localhost:8080",
      basePath: "",
      publicUrlDefaulted: true,
      host: "0.0.0.0",
      port: 8080,
      dataDir: resolve("./data"),
      geocoderUrl: null,
      geocoder: "embedded",
      elevationUrl: null,
      geocoderTimeoutMs: 5000,
      elevationTimeoutMs: 5000,
      elevation: "auto",
      elevationTileset: null,
      routingUrl: null,
      routingEngine: "osrm",
      routingTimeoutMs: 5000,
      routingProfiles: { driving: "car", walking: "foot", cycling: "bike" },
      maxUploadMb: 2048,
      tilingMemoryMb: 256,
      rateLimitPerMinute: 600,
      trustProxy: false,
      allowedHosts: [],
      logLevel: "info",
      renderWorkers: defaultRenderWorkers(availableParallelism()),
      renderQueue: 64,
      renderTimeoutMs: 15000,
      anonymousRendersPerMinute: 600,
      workers: availableParallelism(),
      workerHeader: false,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("PUBLIC_URL defaults to localhost on the configured PORT; empty values count as unset", () => {
    expect(loadConfig({ PORT: "9000" }).publicUrl).toBe("http://localhost:9000");
    expect(loadConfig({ PORT: "", LOG_LEVEL: "" }).port).toBe(8080);
  });
});

describe("PUBLIC_URL with a path prefix", () => {
  test("a path is kept as the base path, with or without a trailing slash", () => {
    for (const raw of ["https://gis.city.example/maps", "https://gis.city.example/maps/", "https://GIS.city.example:443/maps//"]) {
      const c = loadConfig({ PUBLIC_URL: raw });
      expect(c.publicUrl).toBe("https://gis.city.example/maps");
      expect(c.basePath).toBe("/maps");
    }
    const deep = loadConfig({ PUBLIC_URL: "http://127.0.0.1:9000/gis/Maps-2.x/" });
    expect(deep.publicUrl).toBe("http://127.0.0.1:9000/gis/Maps-2.x");
    expect(deep.basePath).toBe("/gis/Maps-2.x");
  });

  test("a bare origin has no base path", () => {
    expect(loadConfig({ PUBLIC_URL: "https://maps.example.com/" }).basePath).toBe("");
    expect(loadConfig({}).basePath).toBe("");
  });

  test("a prefix may not start with a segment of Mapstead's own routes, and the list names them all", async () => {
    const { makeTestApp } = await import("../support/app");
    const t = await makeTestApp();
    try {
      const segments = [...new Set(t.app.routes.map((r) => r.path.split("/")[1]!).filter(Boolean))].sort();
      expect([...ROUTE_SEGMENTS].sort() as string[]).toEqual(segments);
    } finally {
      await t.close();
    }
    for (const segment of ROUTE_SEGMENTS) {
      const refused = (() => {
        try {
          loadConfig({ PUBLIC_URL: `https://gis.example.com/${segment}/x` });
          return null;
        } catch (e) {
          return e as ConfigError;
        }
      })();
      expect(refused?.message).toContain(`starts like Mapstead's own /${segment} routes`);
    }
    // Only whole segments clash: /tilesets and /apis are prefixes of their own.
    expect(loadConfig({ PUBLIC_URL: "https://gis.example.com/tilesets" }).basePath).toBe("/tilesets");
    expect(loadConfig({ PUBLIC_URL: "https://gis.example.com/apis" }).basePath).toBe("/apis");
  });
});

describe("every setting accepts its documented form", () => {
  test("all settings at once", () => {
    const c = loadConfig({
      PUBLIC_URL: "https://maps.example.com/",
      HOST: "127.0.0.1",
      PORT: "0",
      DATA_DIR: "/var/lib/mapstead",
      GEOCODER_INTERNAL_URL: "http://pelias-api:4000/v1/",
      ELEVATION_INTERNAL_URL: "http://opentopodata:5000/v1/srtm30m",
      GEOCODER_TIMEOUT_MS: "100",
      ELEVATION_TIMEOUT_MS: "120000",
      MAX_UPLOAD_MB: "1",
      RATE_LIMIT_PER_MINUTE: "10000000",
      TRUST_PROXY: "on",
      ALLOWED_HOSTS: " Maps.Example.com , tiles.example.com:8443,",
      LOG_LEVEL: "DEBUG",
      RENDER_WORKERS: "3",
      RENDER_QUEUE: "0",
      RENDER_TIMEOUT_MS: "2500",
      WORKERS: "256",
      WORKER_HEADER: "yes",
    });
    expect(c.publicUrl).toBe("https://maps.example.com");
    expect(c.publicUrlDefaulted).toBe(false);
    expect(c.host).toBe("127.0.0.1");
    expect(c.port).toBe(0);
    expect(c.dataDir).toBe("/var/lib/mapstead");
    expect(c.geocoderUrl).toBe("http://pelias-api:4000/v1");
    expect(c.elevationUrl).toBe("http://opentopodata:5000/v1/srtm30m");
    expect(c.geocoderTimeoutMs).toBe(100);
    expect(c.elevationTimeoutMs).toBe(120000);
    expect(c.maxUploadMb).toBe(1);
    expect(c.rateLimitPerMinute).toBe(10_000_000);
    expect(c.trustProxy).toBe(true);
    expect(c.allowedHosts).toEqual(["maps.example.com", "tiles.example.com:8443"]);
    expect(c.logLevel).toBe("debug");
    expect([c.renderWorkers, c.renderQueue, c.renderTimeoutMs]).toEqual([3, 0, 2500]);
    expect(c.workers).toBe(256);
    expect(c.workerHeader).toBe(true);
  });

  test("routing: engine, timeout, and profile names over the engine's defaults", () => {
    const c = loadConfig({ ROUTING_INTERNAL_URL: "http://valhalla:8002/", ROUTING_ENGINE: " Valhalla ", ROUTING_TIMEOUT_MS: "2500", ROUTING_PROFILES: "walking = hiking, cycling=mtb" });
    expect(c.routingUrl).toBe("http://valhalla:8002");
    expect(c.routingEngine).toBe("valhalla");
    expect(c.routingTimeoutMs).toBe(2500);
    expect(c.routingProfiles).toEqual({ driving: "auto", walking: "hiking", cycling: "mtb" });
    expect(loadConfig({ ROUTING_PROFILES: "driving=driving" }).routingProfiles).toEqual({ driving: "driving", walking: "foot", cycling: "bike" });
  });

  test("booleans", () => {
    for (const v of ["1", "true", "yes", "on", "TRUE"]) expect(loadConfig({ TRUST_PROXY: v }).trustProxy).toBe(true);
    for (const v of ["0", "false", "no", "off"]) expect(loadConfig({ TRUST_PROXY: v }).trustProxy).toBe(false);
  });

  test("a relative DATA_DIR is resolved once, against the start-up directory", () => {
    expect(loadConfig({ DATA_DIR: "somewhere/data" }).dataDir).toBe(resolve("somewhere/data"));
  });
});

describe("render threads per HTTP worker process", () => {
  test("by default the HTTP workers share the cores: WORKERS x render threads never exceeds them (but each gets one)", () => {
    expect(defaultRenderWorkers(1, 8)).toBe(8);
    expect(defaultRenderWorkers(4, 8)).toBe(2);
    expect(defaultRenderWorkers(3, 8)).toBe(2);
    expect(defaultRenderWorkers(8, 8)).toBe(1);
    expect(defaultRenderWorkers(16, 8)).toBe(1);
    expect(defaultRenderWorkers(2, 1)).toBe(1);
  });

  test("loadConfig applies it to WORKERS on this machine; RENDER_WORKERS overrides it", () => {
    const cores = availableParallelism();
    expect(loadConfig({ WORKERS: "1" }).renderWorkers).toBe(cores);
    expect(loadConfig({ WORKERS: "256" }).renderWorkers).toBe(1);
    // The default WORKERS is one per core, so one render thread each.
    expect(loadConfig({}).renderWorkers).toBe(1);
    expect(loadConfig({ WORKERS: "256", RENDER_WORKERS: "5" }).renderWorkers).toBe(5);
    expect(loadConfig({ WORKERS: "1", RENDER_WORKERS: "1" }).renderWorkers).toBe(1);
  });
});

describe("bad values name the setting and what it accepts", () => {
  const cases: [Record<string, string>, string, string][] = [
    [{ PORT: "http" }, "PORT", "an integer from 0 to 65535"],
    [{ PORT: "65536" }, "PORT", "out of range"],
    [{ PORT: "-1" }, "PORT", "out of range"],
    [{ PORT: "80.5" }, "PORT", "an integer"],
    [{ HOST: "my host" }, "HOST", "an IP address or host name"],
    [{ PUBLIC_URL: "maps.example.com" }, "PUBLIC_URL", "an http(s) origin"],
    [{ PUBLIC_URL: "https://gis.example.com/tiles" }, "PUBLIC_URL", "has a path (/tiles) that starts like Mapstead's own /tiles routes"],
    [{ PUBLIC_URL: "https://gis.example.com/api/maps/" }, "PUBLIC_URL", "has a path (/api/maps) that starts like Mapstead's own /api routes"],
    [{ PUBLIC_URL: "https://gis.example.com/Console" }, "PUBLIC_URL", "starts like Mapstead's own /console routes"],
    [{ PUBLIC_URL: "https://gis.example.com/maps//x" }, "PUBLIC_URL", "an empty segment or a character other than"],
    [{ PUBLIC_URL: "https://gis.example.com/my%20maps" }, "PUBLIC_URL", "an empty segment or a character other than"],
    [{ PUBLIC_URL: "ftp://maps.example.com" }, "PUBLIC_URL", "must use http or https"],
    [{ PUBLIC_URL: "https://maps.example.com/?x=1" }, "PUBLIC_URL", "must not carry a query"],
    [{ PUBLIC_URL: "https://user:pw@maps.example.com" }, "PUBLIC_URL", "credentials"],
    [{ GEOCODER_INTERNAL_URL: "pelias:4000" }, "GEOCODER_INTERNAL_URL", "http(s)"],
    [{ ELEVATION_INTERNAL_URL: "not a url" }, "ELEVATION_INTERNAL_URL", "an absolute http(s) URL"],
    [{ GEOCODER: "nominatim" }, "GEOCODER", "one of auto, pelias, embedded, off"],
    [{ GEOCODER: "pelias" }, "GEOCODER", "needs GEOCODER_INTERNAL_URL"],
    [{ GEOCODER_TIMEOUT_MS: "99" }, "GEOCODER_TIMEOUT_MS", "an integer from 100 to 120000"],
    [{ ELEVATION_TIMEOUT_MS: "5s" }, "ELEVATION_TIMEOUT_MS", "an integer from 100 to 120000"],
    [{ MAX_UPLOAD_MB: "0" }, "MAX_UPLOAD_MB", "an integer from 1 to 1048576"],
    [{ TILING_MEMORY_MB: "16" }, "TILING_MEMORY_MB", "an integer from 32 to 65536"],
    [{ RATE_LIMIT_PER_MINUTE: "lots" }, "RATE_LIMIT_PER_MINUTE", "an integer from 1 to 10000000"],
    [{ TRUST_PROXY: "maybe" }, "TRUST_PROXY", "true or false"],
    [{ ALLOWED_HOSTS: "good.example.com,bad host" }, "ALLOWED_HOSTS", "comma-separated host names"],
    [{ ALLOWED_HOSTS: "https://x.example.com" }, "ALLOWED_HOSTS", "comma-separated host names"],
    [{ LOG_LEVEL: "verbose" }, "LOG_LEVEL", "one of debug, info, warn, error"],
    [{ DATA_DIR: "   " }, "DATA_DIR", "a directory path"],
    [{ RENDER_WORKERS: "0" }, "RENDER_WORKERS", "an integer from 1 to 64"],
    [{ RENDER_QUEUE: "-1" }, "RENDER_QUEUE", "an integer from 0 to 10000"],
    [{ RENDER_TIMEOUT_MS: "50" }, "RENDER_TIMEOUT_MS", "an integer from 100 to 120000"],
    [{ ROUTING_INTERNAL_URL: "osrm:5000" }, "ROUTING_INTERNAL_URL", "http(s)"],
    [{ ROUTING_ENGINE: "graphhopper" }, "ROUTING_ENGINE", "osrm or valhalla"],
    [{ ROUTING_TIMEOUT_MS: "0" }, "ROUTING_TIMEOUT_MS", "an integer from 100 to 120000"],
    [{ ROUTING_PROFILES: "flying=plane" }, "ROUTING_PROFILES", "driving, walking, cycling"],
    [{ ROUTING_PROFILES: "driving=car/fast" }, "ROUTING_PROFILES", "profile=name pairs"],
    [{ WORKERS: "0" }, "WORKERS", "an integer from 1 to 256"],
    [{ WORKERS: "all" }, "WORKERS", "an integer from 1 to 256"],
    [{ WORKER_HEADER: "sometimes" }, "WORKER_HEADER", "true or false"],
  ];
  test("a URL with credentials is refused without repeating them (the message reaches the journal)", () => {
    const err = configError({ GEOCODER_INTERNAL_URL: "http://svc:hunter2@pelias.internal:4000/v1" });
    expect(err.message).toContain("must not carry credentials");
    expect(err.message).toContain("http://***@pelias.internal:4000/v1");
    expect(err.message).not.toContain("hunter2");
    expect(err.message).not.toContain("svc");
  });

  for (const [env, setting, says] of cases) {
    test(`${JSON.stringify(env)}`, () => {
      const err = configError(env);
      expect(err.setting).toBe(setting);
      expect(err.message.startsWith(setting)).toBe(true);
      expect(err.message).toContain(says);
      expect(err.message).not.toContain("\n");
    });
  }

  test("every setting in SETTINGS says what it accepts", () => {
    expect(SETTINGS.map((s) => s.name).sort()).toEqual(
      ["ALLOWED_HOSTS", "ANONYMOUS_RENDERS_PER_MINUTE", "DATA_DIR", "ELEVATION", "ELEVATION_INTERNAL_URL", "ELEVATION_TILESET", "ELEVATION_TIMEOUT_MS", "GEOCODER", "GEOCODER_INTERNAL_URL", "GEOCODER_TIMEOUT_MS", "HOST", "LOG_LEVEL", "MAX_UPLOAD_MB", "PORT", "PUBLIC_URL", "RATE_LIMIT_PER_MINUTE", "RENDER_QUEUE", "RENDER_TIMEOUT_MS", "RENDER_WORKERS", "ROUTING_ENGINE", "ROUTING_INTERNAL_URL", "ROUTING_PROFILES", "ROUTING_TIMEOUT_MS", "TILING_MEMORY_MB", "TRUST_PROXY", "WORKERS", "WORKER_HEADER"].sort(),
    );
    for (const s of SETTINGS) expect(s.accepts.length).toBeGreaterThan(5);
  });
});

describe("--kebab-case flags", () => {
  test("every setting has a flag, and flags win over the environment", () => {
    for (const s of SETTINGS) expect(splitSettingFlags([`--${kebab(s.name)}=x`]).overrides).toEqual({ [s.name]: "x" });
    const { overrides, rest } = splitSettingFlags(["--port", "9001", "--json", "--data-dir=/srv/maps", "--trust-proxy"]);
    expect(overrides).toEqual({ PORT: "9001", DATA_DIR: "/srv/maps", TRUST_PROXY: "true" });
    expect(rest).toEqual(["--json"]);
    const c = loadConfig({ PORT: "8000", DATA_DIR: "/elsewhere" }, overrides);
    expect(c.port).toBe(9001);
    expect(c.dataDir).toBe("/srv/maps");
    expect(c.trustProxy).toBe(true);
  });

  test("a bad flag value is refused like a bad environment value", () => {
    const err = configError({}, splitSettingFlags(["--max-upload-mb", "huge"]).overrides);
    expect(err.setting).toBe("MAX_UPLOAD_MB");
  });

  test("a flag missing its value is a usage error", () => {
    expect(() => splitSettingFlags(["--port"])).toThrow(UsageError);
  });
});
