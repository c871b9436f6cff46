// The bench tools' CPU accounting: the figures that stay meaningful on a busy machine rest on it.
import { describe, expect, test } from "bun:test";
import { bareConstantServer, cpuMicros, wrk } from "../../bench/lib";

/** Spends `ms` of this thread's CPU time (not wall time: the machine may be busy). */
function burn(ms: number): void {
  const start = process.threadCpuUsage?.() ?? process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 1000; i++) x += Math.sqrt(x + i);
    const now = process.threadCpuUsage?.() ?? process.cpuUsage();
    if (now.user + now.system - start.user - start.system >= ms * 1000) break;
  }
  if (x < 0) throw new Error("unreachable");
}

describe("cpuMicros", () => {
  test("reading a process's CPU time from /proc agrees with process.cpuUsage", () => {
    const ownBefore = cpuMicros();
    const procBefore = cpuMicros(process.pid);
    burn(300);
    const own = cpuMicros() - ownBefore;
    const fromProc = cpuMicros(process.pid) - procBefore;
    // /proc counts in 10 ms ticks, and the runtime's own threads may add a little to both.
    expect(own).toBeGreaterThanOrEqual(300_000);
    expect(Math.abs(fromProc - own)).toBeLessThan(40_000);
  });

  test("another process's CPU time includes the processes it started", async () => {
    // A shell that starts a child burning CPU: the shell itself sleeps.
    const parent = Bun.spawn(["sh", "-c", "bun -e 'const t = Date.now(); while (Date.now() - t < 3000) {}' & wait"]);
    try {
      await Bun.sleep(2000);
      // Even on a busy machine the child gets more than this in two seconds; the shell alone, ~1 ms.
      expect(cpuMicros(parent.pid)).toBeGreaterThan(50_000);
    } finally {
      parent.kill();
      await parent.exited;
    }
  });

  test("an idle child process has used next to no CPU", async () => {
    const child = Bun.spawn(["sleep", "1"]);
    try {
      await Bun.sleep(100);
      expect(cpuMicros(child.pid)).toBeLessThan(50_000);
    } finally {
      child.kill();
      await child.exited;
    }
  });
});

describe.skipIf(!Bun.which("wrk"))("wrk", () => {
  test("reports the server's CPU time per request", async () => {
    let served = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        served++;
        burn(0.2);
        return new Response("ok");
      },
    });
    try {
      const r = await wrk(`http://127.0.0.1:${server.port}/`, { durationS: 1, connections: 2 });
      expect(r.requests).toBeGreaterThan(0);
      expect(served).toBeGreaterThanOrEqual(r.requests);
      // Each request burns 200 us of CPU in the handler alone.
      expect(r.cpuUsPerRequest).toBeGreaterThan(150);
      expect(r.cpuUsPerRequest).toBeLessThan(5_000);
    } finally {
      server.stop(true);
    }
  });

  test("a paced run offers its fixed rate, to random paths, however fast the server answers", async () => {
    const seen = new Set<string>();
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const path = new URL(request.url).pathname;
        seen.add(path);
        // One path answers 5 ms late: the schedule, not the answers, sets when requests go out.
        if (path === "/c") await Bun.sleep(5);
        return new Response("ok");
      },
    });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      const paced = await wrk(url, { durationS: 2, connections: 4, ratePerS: 200, paths: ["/a", "/b", "/c"] });
      expect(paced.rps).toBeGreaterThan(170);
      expect(paced.rps).toBeLessThanOrEqual(215);
      expect([...seen].sort()).toEqual(["/a", "/b", "/c"]);
      // Unpaced, the same server answers far more than that, even on a busy machine.
      const free = await wrk(url, { durationS: 1, connections: 4 });
      expect(free.rps).toBeGreaterThan(1000);
    } finally {
      server.stop(true);
    }
  });
});

test("bareConstantServer reads the request's X-Request-Id only when asked to, and answers its body and headers", async () => {
  const plain = bareConstantServer("{}", { "content-type": "application/json", etag: '"e"' });
  const reading = bareConstantServer("{}", { "content-type": "application/json", etag: '"e"' }, { readsRequestId: true });
  try {
    const a = await fetch(plain.url, { headers: { "x-request-id": "abc" } });
    const b = await fetch(reading.url, { headers: { "x-request-id": "abc" } });
    expect([await a.text(), a.headers.get("etag"), a.headers.get("x-request-id")]).toEqual(["{}", '"e"', null]);
    expect([await b.text(), b.headers.get("etag"), b.headers.get("x-request-id")]).toEqual(["{}", '"e"', "abc"]);
  } finally {
    plain.stop();
    reading.stop();
  }
});
