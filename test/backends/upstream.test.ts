// The operator's log line when a backend fails a call: which setting points at it and what to do,
// besides the client's 503/502 (which never shows the internal URL).
import { afterAll, expect, test } from "bun:test";
import { requestUpstreamJson, type UpstreamTarget } from "../../src/backends/upstream";
import { createLogger } from "../../src/log";
import { freePort } from "../support/app";

const lines: Record<string, unknown>[] = [];
const log = createLogger("warn", (line) => void lines.push(JSON.parse(line)));
const target = (code: UpstreamTarget["unavailableCode"], label: string, timeoutMs = 2000): UpstreamTarget => ({ label, unavailableCode: code, timeoutMs, log });

const slowOrHtml = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    if (new URL(req.url).pathname === "/slow") await Bun.sleep(500);
    return new Response("<html>hello</html>", { headers: { "content-type": "text/html" } });
  },
});
afterAll(() => slowOrHtml.stop(true));

async function logged(call: Promise<unknown>): Promise<Record<string, unknown>> {
  lines.length = 0;
  await call.then(
    () => {
      throw new Error("the call should have failed");
    },
    () => {},
  );
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

test("no answer: the log names the setting and says to check the backend runs there", async () => {
  const line = await logged(requestUpstreamJson(`http://127.0.0.1:${freePort()}/v1/search`, target("GEOCODER_UNAVAILABLE", "geocoding backend")));
  expect(line).toMatchObject({ msg: "backend unavailable", backend: "geocoding backend", setting: "GEOCODER_INTERNAL_URL", reason: "connection refused" });
  expect(line.fix).toBe("check that the geocoding backend runs and that GEOCODER_INTERNAL_URL points at it; `mapstead preflight` probes it");
});

test("too slow: the fix also names the timeout setting", async () => {
  const line = await logged(requestUpstreamJson(`http://127.0.0.1:${slowOrHtml.port}/slow`, target("ROUTER_UNAVAILABLE", "routing backend", 100)));
  expect(line).toMatchObject({ msg: "backend unavailable", setting: "ROUTING_INTERNAL_URL", reason: "no answer within 100 ms" });
  expect(line.fix).toContain("or raise ROUTING_TIMEOUT_MS if it is only slow");
});

test("a wrong answer: the log names the setting to check", async () => {
  const line = await logged(requestUpstreamJson(`http://127.0.0.1:${slowOrHtml.port}/v1/srtm`, target("ELEVATION_UNAVAILABLE", "elevation backend")));
  expect(line).toMatchObject({ msg: "backend answered wrongly", setting: "ELEVATION_INTERNAL_URL" });
  expect(line.fix).toContain("check that ELEVATION_INTERNAL_URL points at the right kind of server");
});
