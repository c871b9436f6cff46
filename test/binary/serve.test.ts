// The compiled executable, started the way an operator starts it: from an unrelated cwd, with only a
// DATA_DIR. Proves migrations and assets are embedded and shutdown is clean.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../support/binary";
import { tempDir } from "../support/app";
import { migrations } from "../../drizzle/index";

beforeAll(async () => {
  await ensureBinary();
}, 120_000);

function integrity(dataDir: string) {
  const db = new Database(join(dataDir, "mapstead.db"), { readonly: true });
  try {
    return {
      check: (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
      migrations: db.query("SELECT tag FROM __mapstead_migrations").all() as { tag: string }[],
      tables: (db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name),
    };
  } finally {
    db.close();
  }
}

describe("the compiled binary serving", () => {
  let app: RunningBinary;
  beforeAll(async () => {
    app = await startBinary();
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  }, 30_000);

  test("answers /health and /health/detailed", async () => {
    const health = await app.fetch("/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect(health.headers.get("x-request-id")).toBeTruthy();

    const detailed = await app.fetch("/health/detailed");
    expect(detailed.status).toBe(200);
    const body = await detailed.json();
    expect(Object.keys(body.components).sort()).toEqual(["database", "elevation", "geocoder", "jobs", "router", "storage"]);
    expect(body.components.database.status).toBe("ok");
    // The embedded gazetteer answers geocoding; it is still being built from the built-in data
    // (degraded) or ready (ok) this soon after start.
    expect(body.components.geocoder.detail).toContain("embedded gazetteer");
    expect(["ok", "degraded"]).toContain(body.components.geocoder.status);
    expect(body.status).toBe(body.components.geocoder.status);
  }, 60_000);

  test("applied the embedded migrations to DATA_DIR, not to its cwd", () => {
    expect(existsSync(join(app.dataDir, "mapstead.db"))).toBe(true);
    expect(existsSync(join(app.cwd, "data"))).toBe(false);
    const db = integrity(app.dataDir);
    expect(db.migrations.map((m) => m.tag)).toEqual(migrations.map((m) => m.tag));
    for (const table of ["users", "orgs", "api_keys", "tilesets", "styles", "jobs", "settings"]) expect(db.tables).toContain(table);
    expect(app.logs().some((e) => e.msg === "migrations applied")).toBe(true);
  }, 60_000);

  test("serves the OpenAPI document and the docs page with its embedded script", async () => {
    const spec = await app.fetch("/openapi.json");
    expect(spec.status).toBe(200);
    const doc = await spec.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths["/health"].get).toBeTruthy();

    const page = await app.fetch("/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith("/")).toBe(true);
      const asset = await app.fetch(src);
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    }
  }, 60_000);

  test("headers over 16 KiB get a 431 envelope with a request id; the process keeps serving", async () => {
    const res = await app.fetch("/health", { headers: { "x-big": "a".repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect((await res.json()).error.code).toBe("BAD_REQUEST");
    expect((await app.fetch("/health")).status).toBe(200);
  }, 60_000);

  test("writes one JSON access-log line per request, without the query string", async () => {
    await app.fetch("/health?secret=hunter2", { headers: { "x-request-id": "bin-log-1" } });
    const line = await app.waitForLog((e) => e.msg === "request" && e.request_id === "bin-log-1");
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/health", status: 200 });
    expect(typeof line.ms).toBe("number");
    expect(app.lines.join("\n")).not.toContain("hunter2");
  }, 60_000);
});

describe("shutdown", () => {
  test("an idle server exits as soon as it has stopped (nothing keeps the process alive)", async () => {
    const app = await startBinary();
    await app.fetch("/health");
    await app.fetch("/fonts/v1/Noto%20Sans%20Regular/0-255.pbf");
    app.proc.kill("SIGTERM");
    await app.waitForLog((e) => e.msg === "stopped");
    const stoppedAt = performance.now();
    expect(await app.proc.exited).toBe(0);
    // A leftover timer, worker or handle showed as a 1-2 s gap here; a clean exit takes a few ms.
    expect(performance.now() - stoppedAt).toBeLessThan(500);
  }, 60_000);

  test("SIGTERM stops accepting, lets the in-flight request finish, closes and exits 0", async () => {
    // A geocoder that answers slowly keeps /health/detailed in flight while the signal arrives.
    let arrived!: () => void;
    const requestArrived = new Promise<void>((r) => (arrived = r));
    const slow = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch() {
        arrived();
        await Bun.sleep(1500);
        return Response.json({ type: "FeatureCollection", features: [] });
      },
    });
    try {
      const app = await startBinary({ env: { GEOCODER_INTERNAL_URL: `http://127.0.0.1:${slow.port}/v1` } });
      const inFlight = app.fetch("/health/detailed", { headers: { "x-request-id": "in-flight-1" } });
      await requestArrived;
      app.proc.kill("SIGTERM");
      await app.waitForLog((e) => e.msg === "shutting down");
      // New connections are refused while the old request drains.
      const refused = await fetch(`${app.baseUrl}/health`).then(
        () => false,
        () => true,
      );
      expect(refused).toBe(true);
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect((await res.json()).components.geocoder.status).toBe("ok");
      expect(await app.stop()).toBe(0);
      const msgs = app.logs().map((e) => e.msg);
      expect(msgs).toContain("stopped");
      expect(msgs.indexOf("stopped")).toBeGreaterThan(msgs.indexOf("shutting down"));
      expect(app.logs().find((e) => e.request_id === "in-flight-1")?.status).toBe(200);
      expect(integrity(app.dataDir).check).toBe("ok");
      // The WAL was checkpointed into the database file on the way out.
      const wal = join(app.dataDir, "mapstead.db-wal");
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    } finally {
      slow.stop(true);
    }
  }, 60_000);

  test("an upload still streaming in when the drain runs out answers 503 SERVER_STOPPING with Retry-After, and leaves no file", async () => {
    const dataDir = join(tempDir("mapstead-upload-stop-"), "data");
    const env = { DATA_DIR: dataDir };
    expect((await runBinary(["orgs", "create", "--slug", "acme", "--name", "Acme"], { env })).exitCode).toBe(0);
    const key = JSON.parse((await runBinary(["keys", "create", "--org", "acme", "--name", "up", "--scopes", "tilesets:write", "--json"], { env })).stdout).secret as string;
    const app = await startBinary({ dataDir, env: { WORKERS: "1" } });
    expect((await app.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ slug: "slow" }) })).status).toBe(201);
    // A client that sends the start of a GeoJSON file and then stalls (a slow link), never finishing.
    let sent!: () => void;
    const started = new Promise<void>((r) => (sent = r));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"type":"FeatureCollection","features":['));
        sent();
      },
    });
    const answer = fetch(`${app.baseUrl}/api/v1/orgs/acme/tilesets/slow/versions`, { method: "POST", headers: { "x-api-key": key }, body, duplex: "half" } as RequestInit);
    await started;
    await Bun.sleep(300);
    app.proc.kill("SIGTERM");
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SERVER_STOPPING");
    expect(await app.proc.exited).toBe(0);
    expect(readdirSync(join(dataDir, "uploads"))).toEqual([]);
  }, 60_000);

  test("SIGINT stops it too", async () => {
    const app = await startBinary();
    expect(await app.stop("SIGINT")).toBe(0);
    expect(app.logs().map((e) => e.msg)).toContain("stopped");
  }, 60_000);
});

describe("two processes on one data dir", () => {
  test("a server and a command starting at once both migrate safely and the database stays intact", async () => {
    // (A second server on the data dir is refused: test/binary/server-lock.test.ts.)
    const dataDir = join(tempDir("mapstead-twin-"), "data");
    const [a, b] = await Promise.all([startBinary({ dataDir }), runBinary(["migrate"], { env: { DATA_DIR: dataDir } })]);
    try {
      expect(b.exitCode).toBe(0);
      expect((await a.fetch("/health/detailed")).status).toBe(200);
      // Each migration was applied once, by one of them; the other found it done.
      const byServer = (a.logs().find((e) => e.msg === "migrations applied")?.migrations as string[] | undefined) ?? [];
      const byCommand = /Applied \d+ migration\(s\): (.*)/.exec(b.stdout)?.[1]?.split(", ") ?? [];
      expect([...byServer, ...byCommand].sort()).toEqual(migrations.map((m) => m.tag).sort());
    } finally {
      expect(await a.stop()).toBe(0);
    }
    const db = integrity(dataDir);
    expect(db.check).toBe("ok");
    expect(db.migrations.map((m) => m.tag)).toEqual(migrations.map((m) => m.tag));
  }, 60_000);

  test("a second process on a port in use fails with one clear line instead of sharing the port", async () => {
    const dataDir = join(tempDir("mapstead-twin-"), "data");
    const first = await startBinary({ dataDir });
    try {
      const second = startBinary({ dataDir, env: { PORT: String(first.port) } });
      const err = await second.then(
        () => null,
        (e: Error) => e.message,
      );
      expect(err).toContain("exited (1)");
      expect(err).toContain(`cannot listen on 127.0.0.1:${first.port}: Port ${first.port} is already in use on 127.0.0.1 by another program`);
      expect((await first.fetch("/health")).status).toBe(200);
      // It fails before opening its data dir: a mistaken second start creates or upgrades nothing.
      const otherDir = join(tempDir("mapstead-twin-other-"), "data");
      const third = await startBinary({ dataDir: otherDir, env: { PORT: String(first.port) } }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(third).toContain(`cannot listen on 127.0.0.1:${first.port}`);
      expect(existsSync(otherDir)).toBe(false);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(integrity(dataDir).check).toBe("ok");
  }, 60_000);
});
