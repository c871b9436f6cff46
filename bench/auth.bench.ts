// Cost of authentication on the hot path: the same trivial route in the full app, once open and once
// behind { scope: "geocoding" } (key check from the in-memory cache, token bucket, usage counting,
// X-RateLimit-* headers), measured alternately in one run. Target: the authenticated route keeps at
// least 90% of the open route's throughput. A second figure (no target) uses a key with a monthly
// quota, which adds the quota check and four X-Quota-* headers.
import { Elysia } from "elysia";
import { freePort, listenAsServed, makeTestApp } from "../test/support/app";
import { seedKey, seedOrg } from "../test/support/seed";
import { authPlugin } from "../src/http/auth";
import { median, QUICK, report, wrk, wrkLine, type WrkResult } from "./lib";

const t = await makeTestApp({ RATE_LIMIT_PER_MINUTE: "10000000" });
const body = { ok: true };
t.app.use(
  new Elysia({ name: "auth-bench" })
    .use(authPlugin(t.services.auth))
    .get("/bench/open", () => body)
    .get("/bench/authed", () => body, { scope: "geocoding" }),
);
const port = freePort();
listenAsServed(t.app, port);
const base = `http://127.0.0.1:${port}`;
const orgId = seedOrg(t.ctx, "bench").id;
const key = seedKey(t.ctx, orgId, ["geocoding"]).secret;
const quotaKey = seedKey(t.ctx, orgId, ["geocoding"], { monthlyQuota: 1_000_000_000_000 }).secret;
const headers = { "x-api-key": key };
const quotaHeaders = { "x-api-key": quotaKey };

try {
  const check = await fetch(`${base}/bench/authed`, { headers: quotaHeaders });
  if (check.status !== 200 || !check.headers.get("x-ratelimit-limit") || !check.headers.get("x-quota-used")) throw new Error(`authenticated route answered ${check.status}`);
  if ((await fetch(`${base}/bench/authed`)).status !== 401) throw new Error("the authenticated route accepted a request without a key");

  await wrk(`${base}/bench/open`, { durationS: 1 });
  await wrk(`${base}/bench/authed`, { durationS: 1, headers });
  const open: WrkResult[] = [];
  const authed: WrkResult[] = [];
  const quota: WrkResult[] = [];
  // Many short rounds, alternating, so drift on a shared machine hits all variants alike (the same
  // request headers for all); the figure is the median of the per-round ratios, each from runs
  // measured back to back.
  const rounds = QUICK ? 4 : 10;
  for (let round = 0; round < rounds; round++) {
    open.push(await wrk(`${base}/bench/open`, { durationS: 2, headers }));
    authed.push(await wrk(`${base}/bench/authed`, { durationS: 2, headers }));
    quota.push(await wrk(`${base}/bench/authed`, { durationS: 2, headers: quotaHeaders }));
  }
  for (const [i, r] of open.entries()) wrkLine(`open route, round ${i + 1}`, r);
  for (const [i, r] of authed.entries()) wrkLine(`authenticated route, round ${i + 1}`, r);
  for (const [i, r] of quota.entries()) wrkLine(`authenticated route, key with quota, round ${i + 1}`, r);
  const bad = [...authed, ...quota].reduce((n, r) => n + r.non2xx, 0);
  if (bad) console.log(`  warning: ${bad} non-2xx answers on the authenticated route`);
  const ratios = authed.map((r, i) => r.rps / open[i]!.rps);
  console.log(`  per-round ratios: ${ratios.map((r) => r.toFixed(3)).join(", ")}; best-of ratio ${(Math.max(...authed.map((r) => r.rps)) / Math.max(...open.map((r) => r.rps))).toFixed(3)}`);
  report("authenticated / open trivial route throughput", median(ratios), "ratio", ">= 0.9");
  report("authenticated with monthly quota / open (no target)", median(quota.map((r, i) => r.rps / open[i]!.rps)), "ratio");

  // The same comparison without sockets or wrk (app.handle in this process), best of many short
  // batches: steadier than wrk on a busy machine, and it shows the added microseconds directly.
  const perRequestUs = async (path: string, h: Record<string, string>, n: number) => {
    const requests = Array.from({ length: n }, () => new Request(`${t.baseUrl}${path}`, { headers: h }));
    const started = performance.now();
    for (const r of requests) if ((await t.app.handle(r)).status !== 200) throw new Error(`${path} failed`);
    return ((performance.now() - started) * 1000) / n;
  };
  const best = { open: Infinity, authed: Infinity, quota: Infinity };
  for (let i = 0; i < 30; i++) {
    best.open = Math.min(best.open, await perRequestUs("/bench/open", headers, 2000));
    best.authed = Math.min(best.authed, await perRequestUs("/bench/authed", headers, 2000));
    best.quota = Math.min(best.quota, await perRequestUs("/bench/authed", quotaHeaders, 2000));
  }
  console.log(`  in-process per request: open ${best.open.toFixed(2)} µs, authenticated ${best.authed.toFixed(2)} µs, with quota ${best.quota.toFixed(2)} µs`);
  report("in-process authentication cost", best.authed - best.open, "µs per request");
} finally {
  await t.app.stop(true);
  await t.close();
}
