// Findings of a security review, each reproduced over real HTTP against a listening app.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveTestApp, type TestApp } from "../support/app";
import { seedKey, seedOrg } from "../support/seed";
import { openDatabase } from "../../src/db/client";
import { createChangeBus } from "../../src/domain/changes/bus";
import { revokeKey } from "../../src/domain/keys/service";
import { silentLogger } from "../../src/log";

let t: TestApp;
let orgId: number;

beforeAll(async () => {
  t = await serveTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(t.baseUrl + path, { headers });

describe("API keys", () => {
  test("a key revoked by another process (the CLI, another worker) is refused by the very next request, not a watcher tick later", async () => {
    const key = seedKey(t.ctx, orgId, ["tilesets:write"]);
    const list = () => get("/api/v1/orgs/acme/tilesets", { "x-api-key": key.secret });
    expect((await list()).status).toBe(200); // verified and cached
    // What `mapstead keys revoke` does: its own connection, its own change bus.
    const other = openDatabase(t.ctx.config.dataDir);
    try {
      expect(revokeKey(other.db, createChangeBus(other.sqlite, silentLogger), orgId, key.id)).toBe(true);
    } finally {
      other.sqlite.close();
    }
    const res = await list();
    expect(res.status).toBe(401);
    expect((await res.json()).error).toEqual({ code: "UNAUTHORIZED", message: "The API key is invalid or has been deleted" });
  });
});
