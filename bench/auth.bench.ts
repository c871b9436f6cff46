// Cost of authentication on the hot path: the same trivial route in the full app, once open and once
// behind { scope: "geocoding" } (key check from the in-memory cache, token bucket, monthly quota,
// usage counting, rate-limit and quota headers), measured alternately in one run. Target: the
// authenticated route keeps at least 90% of the open route's throughput.
import { Elysia } from "elysia";
import { makeTestApp, freePort } from "../test/support/app";
import { seedKey, seedOrg } from "../test/support/seed";
import { authPlugin } from "../src/http/auth";
import { DURATION_S, median, report, wrk, wrkLine, type WrkResult } from "./lib";

const t = await makeTestApp({ RATE_LIMIT_PER_MINUTE: "10000000" });
const body = { ok: true };
t.app.use(
  new Elysia({ name: "auth-bench" })
    .use(authPlugin(t.ctx))
    .get("/bench/open", () => body)
    .get("/bench/authed", () => body, { scope: "geocoding" }),
);
const port = freePort();
t.app.listen({ hostname: "127.0.0.1", port });
const base = `http://127.0.0.1:${port}`;
const key = seedKey(t.ctx, seedOrg(t.ctx, "bench").id, ["geocoding"], { monthlyQuota: 1_000_000_000_000 }).secret;
const headers = { "x-api-key": key };

try {
  const check = await fetch(`${base}/bench/authed`, { headers });
  if (check.status !== 200 || !check.headers.get("x-ratelimit-limit") || !check.headers.get("x-quota-used")) throw new Error(`authenticated route answered ${check.status}`);
  if ((await fetch(`${base}/bench/authed`)).status !== 401) throw new Error("the authenticated route accepted a request without a key");

  await wrk(`${base}/bench/open`, { durationS: 1 });
  await wrk(`${base}/bench/authed`, { durationS: 1, headers });
  const open: WrkResult[] = [];
  const authed: WrkResult[] = [];
  // Alternate so drift on a shared machine hits both alike (the same request headers for both); the
  // figure is the median of the per-round ratios, each from two runs measured back to back.
  for (let round = 0; round < 5; round++) {
    open.push(await wrk(`${base}/bench/open`, { durationS: DURATION_S, headers }));
    authed.push(await wrk(`${base}/bench/authed`, { durationS: DURATION_S, headers }));
  }
  for (const [i, r] of open.entries()) wrkLine(`open route, round ${i + 1}`, r);
  for (const [i, r] of authed.entries()) wrkLine(`authenticated route, round ${i + 1}`, r);
  const bad = authed.reduce((n, r) => n + r.non2xx, 0);
  if (bad) console.log(`  warning: ${bad} non-2xx answers on the authenticated route`);
  const ratios = authed.map((r, i) => r.rps / open[i]!.rps);
  console.log(`  per-round ratios: ${ratios.map((r) => r.toFixed(3)).join(", ")}; best-of ratio ${(Math.max(...authed.map((r) => r.rps)) / Math.max(...open.map((r) => r.rps))).toFixed(3)}`);
  report("authenticated / open trivial route throughput", median(ratios), "ratio", ">= 0.9");
} finally {
  await t.app.stop(true);
  await t.close();
}
