// A small Pelias API stand-in on a real ephemeral port, speaking Pelias' wire format
// (GET /v1/search|reverse|autocomplete -> GeoJSON FeatureCollection with a `geocoding` header block).
// It records every call's exact query string and can be told to misbehave.

export type PeliasMode = "ok" | "malformed-json" | "not-geojson" | "html";

export interface FakeCall {
  path: string;
  /** the raw query string without "?", exactly as received */
  search: string;
  params: URLSearchParams;
}

export interface FakePelias {
  /** base URL including the version prefix, e.g. http://127.0.0.1:1234/v1 */
  url: string;
  origin: string;
  calls: FakeCall[];
  /** answer this HTTP status (with a Pelias-style error body) instead of results; null = normal */
  status: number | null;
  mode: PeliasMode;
  delayMs: number;
  /** most calls in flight at once since the last reset */
  maxInFlight: number;
  reset(): void;
  stop(): Promise<void>;
}

function place(i: number, text: string, extra: Record<string, unknown> = {}) {
  const lon = 8.5417 + i * 0.01;
  const lat = 47.3769 + i * 0.01;
  return {
    type: "Feature",
    geometry: { type: "Point", coordinates: [lon, lat] },
    properties: {
      id: `node/${1000 + i}`,
      gid: `openstreetmap:venue:node/${1000 + i}`,
      layer: "venue",
      source: "openstreetmap",
      source_id: `node/${1000 + i}`,
      country_code: "CH",
      name: `${text} ${i}`,
      housenumber: String(10 + i),
      street: "Bahnhofstrasse",
      postalcode: "8001",
      confidence: 0.9,
      match_type: "exact",
      accuracy: "point",
      country: "Switzerland",
      country_gid: "whosonfirst:country:85633051",
      country_a: "CHE",
      region: "Zurich",
      region_gid: "whosonfirst:region:85682041",
      region_a: "ZH",
      county: "",
      locality: "Zürich",
      neighbourhood: "",
      continent: "Europe",
      label: `${text} ${i}, Zürich, Switzerland`,
      addendum: { osm: { wheelchair: "yes" } },
      ...extra,
    },
    bbox: [lon - 0.001, lat - 0.001, lon + 0.001, lat + 0.001],
  };
}

function answer(path: string, params: URLSearchParams, origin: string) {
  const size = Number(params.get("size") ?? 10);
  const text = params.get("text") ?? "";
  let features: unknown[];
  if (path.endsWith("/reverse")) {
    features = Array.from({ length: size }, (_, i) => place(i, "Place", { distance: 0.123 + i, layer: i === 0 ? "address" : "street" }));
  } else if (text.toLowerCase().startsWith("nowhere")) {
    features = [];
  } else if (text.toLowerCase().startsWith("mixed")) {
    // a WOF locality without street data and with alpha-3 only, plus one broken feature to skip
    features = [
      place(0, text),
      {
        type: "Feature",
        geometry: { type: "Point", coordinates: [2.35, 48.85] },
        properties: { gid: "whosonfirst:locality:101751119", layer: "locality", source: "whosonfirst", name: "Paris", country: "France", country_a: "FRA", locality: "Paris", label: "Paris, France", street: "", housenumber: null },
      },
      { type: "Feature", geometry: { type: "LineString", coordinates: [] }, properties: {} },
    ];
  } else {
    features = Array.from({ length: Math.min(size, 3) }, (_, i) => place(i, text));
  }
  return {
    geocoding: {
      version: "0.2",
      attribution: `${origin}/attribution`,
      query: Object.fromEntries(params),
      warnings: text.toLowerCase().startsWith("warn") ? ["performance optimization: excluding 'address' layer"] : undefined,
      engine: { name: "Pelias", author: "Mapzen", version: "1.0" },
      timestamp: Date.now(),
    },
    type: "FeatureCollection",
    features,
    bbox: [8.5, 47.3, 8.6, 47.4],
  };
}

export function startFakePelias(opts: { prefix?: string } = {}): FakePelias {
  const prefix = opts.prefix ?? "/v1";
  const fake: FakePelias = {
    url: "",
    origin: "",
    calls: [],
    status: null,
    mode: "ok",
    delayMs: 0,
    maxInFlight: 0,
    reset() {
      fake.calls.length = 0;
      fake.status = null;
      fake.mode = "ok";
      fake.delayMs = 0;
      fake.maxInFlight = 0;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      try {
        return await handle(req);
      } finally {
        inFlight--;
      }
    },
  });
  let inFlight = 0;
  async function handle(req: Request): Promise<Response> {
      const url = new URL(req.url);
      const raw = req.url.slice(req.url.indexOf("?") + 1);
      fake.calls.push({ path: url.pathname, search: req.url.includes("?") ? raw : "", params: url.searchParams });
      if (fake.delayMs) await Bun.sleep(fake.delayMs);
      const route = url.pathname.slice(prefix.length);
      if (!url.pathname.startsWith(prefix) || !["/search", "/reverse", "/autocomplete"].includes(route))
        return Response.json({ geocoding: { errors: ["not found"] } }, { status: 404 });
      // "explode..." searches fail on their own, for partial batch failures
      if ((url.searchParams.get("text") ?? "").startsWith("explode")) return Response.json({ geocoding: { errors: ["boom"] } }, { status: 500 });
      if (fake.status !== null) return Response.json({ geocoding: { errors: [`backend says ${fake.status}`] }, type: "FeatureCollection", features: [] }, { status: fake.status });
      if (fake.mode === "malformed-json") return new Response('{"type":"FeatureCollection","features":[', { headers: { "content-type": "application/json" } });
      if (fake.mode === "not-geojson") return Response.json({ hello: "world" });
      if (fake.mode === "html") return new Response("<html><body>It works!</body></html>", { headers: { "content-type": "text/html" } });
      return Response.json(answer(url.pathname, url.searchParams, fake.origin));
  }
  fake.origin = `http://127.0.0.1:${server.port}`;
  fake.url = fake.origin + prefix;
  return fake;
}
