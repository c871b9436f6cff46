// A small OpenTopoData stand-in on a real ephemeral port, speaking its wire format:
// GET /v1/{dataset}?locations=lat,lon|lat,lon&interpolation=bilinear ->
// {"results":[{"dataset","elevation","location":{"lat","lng"}}],"status":"OK"}; more than 100 locations
// is a 400 INVALID_REQUEST like the real server. Elevation is a deterministic function of the location,
// null (no coverage) north of latitude 80. Every call's exact query string is recorded.

export interface FakeTopoCall {
  path: string;
  search: string;
  params: URLSearchParams;
  /** parsed locations, [lat, lon] */
  locations: [number, number][];
}

export interface FakeOpenTopoData {
  /** dataset URL, e.g. http://127.0.0.1:1234/v1/test30m */
  url: string;
  origin: string;
  calls: FakeTopoCall[];
  status: number | null;
  mode: "ok" | "malformed-json" | "no-results";
  delayMs: number;
  reset(): void;
  stop(): Promise<void>;
}

/** The fake's terrain: metres at a point (null = outside coverage). */
export function fakeElevation(lat: number, lon: number): number | null {
  if (lat > 80) return null;
  return Math.round((500 + 1000 * Math.sin(lat / 3) + 20 * lon) * 100) / 100;
}

export function startFakeOpenTopoData(opts: { dataset?: string } = {}): FakeOpenTopoData {
  const dataset = opts.dataset ?? "test30m";
  const fake: FakeOpenTopoData = {
    url: "",
    origin: "",
    calls: [],
    status: null,
    mode: "ok",
    delayMs: 0,
    reset() {
      fake.calls.length = 0;
      fake.status = null;
      fake.mode = "ok";
      fake.delayMs = 0;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const search = req.url.includes("?") ? req.url.slice(req.url.indexOf("?") + 1) : "";
      const raw = url.searchParams.get("locations") ?? "";
      const locations = raw ? raw.split("|").map((p) => p.split(",").map(Number) as [number, number]) : [];
      fake.calls.push({ path: url.pathname, search, params: url.searchParams, locations });
      if (fake.delayMs) await Bun.sleep(fake.delayMs);
      if (url.pathname !== `/v1/${dataset}`)
        return Response.json({ error: `Dataset '${url.pathname.split("/").pop()}' not in config.`, status: "INVALID_REQUEST" }, { status: url.pathname.startsWith("/v1/") ? 400 : 404 });
      if (fake.status !== null) return Response.json({ error: "Server error.", status: "SERVER_ERROR" }, { status: fake.status });
      if (!raw) return Response.json({ error: "No locations provided.", status: "INVALID_REQUEST" }, { status: 400 });
      if (locations.length > 100) return Response.json({ error: `Too many locations provided (${locations.length}), the limit is 100.`, status: "INVALID_REQUEST" }, { status: 400 });
      if (locations.some(([lat, lon]) => !Number.isFinite(lat) || !Number.isFinite(lon)))
        return Response.json({ error: "Unable to parse location string.", status: "INVALID_REQUEST" }, { status: 400 });
      if (fake.mode === "malformed-json") return new Response('{"results": [', { headers: { "content-type": "application/json" } });
      if (fake.mode === "no-results") return Response.json({ status: "OK" });
      return Response.json({
        results: locations.map(([lat, lon]) => ({ dataset, elevation: fakeElevation(lat, lon), location: { lat, lng: lon } })),
        status: "OK",
      });
    },
  });
  fake.origin = `http://127.0.0.1:${server.port}`;
  fake.url = `${fake.origin}/v1/${dataset}`;
  return fake;
}
