// Uploads sent with Content-Encoding (RFC 9110 section 8.4), over real HTTP: gzip and deflate bodies are
// decoded as they stream, with MAX_UPLOAD_MB applied to the decoded size; a body that does not decode is
// a 400 naming Content-Encoding, and any other coding a 415 naming it and the ones read. Without the
// header nothing changes: a gzip file sent as it is still gets 415 "upload the file uncompressed".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, deflateSync } from "node:zlib";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { countries, createTileset, waitForVersion } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;
const world = JSON.stringify(countries());

beforeAll(async () => {
  t = await serveTestApp({ MAX_UPLOAD_MB: "1" });
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
});
afterAll(() => t.close());

async function send(body: BodyInit, extra: Record<string, string>, query = "?maxzoom=1") {
  const slug = `enc-${++counter}`;
  await createTileset(t, "acme", headers, { slug });
  const res = await t.fetch(`/api/v1/orgs/acme/tilesets/${slug}/versions${query}`, { method: "POST", headers: { ...headers, ...extra }, body });
  return { slug, res };
}

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

const uploadsLeft = () => readdirSync(join(t.dataDir, "uploads"));

test("gzip and deflate bodies are decoded and processed, raw or multipart; x-gzip and identity are understood", async () => {
  for (const [coding, body] of [
    ["gzip", Bun.gzipSync(world)],
    ["x-gzip", Bun.gzipSync(world)],
    ["deflate", deflateSync(world)],
    ["gzip, identity", Bun.gzipSync(world)],
  ] as const) {
    const { slug, res } = await send(body, { "content-encoding": coding });
    expect({ coding, status: res.status }).toEqual({ coding, status: 202 });
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect({ coding, state: v.state, error: v.error, format: v.source_format }).toEqual({ coding, state: "ready", error: null, format: "geojson" });
    expect(v.stats.features).toBe(countries().features.length);
  }
  const form = new FormData();
  form.append("file", new Blob([world]), "world.geojson");
  form.append("maxzoom", "1");
  const multipart = new Response(form);
  // Read before the body: Bun's Response forgets a FormData's Content-Type once the body is taken.
  const type = multipart.headers.get("content-type")!;
  const { slug, res } = await send(Bun.gzipSync(new Uint8Array(await multipart.arrayBuffer())), { "content-encoding": "gzip", "content-type": type }, "");
  expect(res.status).toBe(202);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
  expect(v.state).toBe("ready");
  expect(v.recipe).toMatchObject({ maxzoom: 1, filename: "world.geojson" });
});

test("a body that does not decode as its Content-Encoding is 400 naming it; nothing is kept", async () => {
  const plain = await send(world, { "content-encoding": "gzip" });
  expect(plain.res.status).toBe(400);
  const e = await errorOf(plain.res);
  expect(e.code).toBe("BAD_REQUEST");
  expect(e.message).toStartWith("The upload body does not decode as Content-Encoding: gzip");
  const gz = Bun.gzipSync(world);
  const truncated = await send(gz.subarray(0, gz.length - 100), { "content-encoding": "gzip" });
  expect(truncated.res.status).toBe(400);
  expect((await errorOf(truncated.res)).message).toContain("Content-Encoding: gzip");
  expect(uploadsLeft()).toEqual([]);
});

test("other codings are 415 naming the coding and the supported ones, before the body is read", async () => {
  for (const [coding, body] of [
    ["br", brotliCompressSync(world)],
    ["zstd", world],
    ["compress", world],
    ["gzip, br", world],
    ["snappy", world],
  ] as const) {
    const { res } = await send(body, { "content-encoding": coding });
    expect({ coding, status: res.status }).toEqual({ coding, status: 415 });
    const e = await errorOf(res);
    expect(e.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(e.message).toBe(`Content-Encoding ${coding.split(", ").at(-1)} is not supported; send the body uncompressed or with Content-Encoding gzip or deflate`);
  }
  expect(uploadsLeft()).toEqual([]);
});

test("MAX_UPLOAD_MB applies to the decoded size: a gzip bomb is 413 naming the limit, and its file is removed", async () => {
  // 64 MiB of spaces: about 64 KiB gzipped, far under the 1 MiB limit as sent.
  const bomb = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024).fill(0x20));
  expect(bomb.length).toBeLessThan(1024 * 1024);
  const { res } = await send(bomb, { "content-encoding": "gzip" });
  expect(res.status).toBe(413);
  const e = await errorOf(res);
  expect(e.code).toBe("PAYLOAD_TOO_LARGE");
  expect(e.message).toBe("Upload is over MAX_UPLOAD_MB (1 MiB) once decoded from Content-Encoding gzip");
  expect(uploadsLeft()).toEqual([]);
});

test("without Content-Encoding nothing changes: a gzip file sent as it is gets 415 saying to upload it uncompressed", async () => {
  const { res } = await send(Bun.gzipSync(world), {});
  expect(res.status).toBe(415);
  expect((await errorOf(res)).message).toContain("gzip-compressed data; upload the file uncompressed");
});
