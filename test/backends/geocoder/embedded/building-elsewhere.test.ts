// In a cluster the supervisor builds the gazetteer on first start while HTTP workers answer
// /health/detailed from gazetteers of their own that have not opened the file: they must say it is
// being built (as the supervisor does), and then what the built file holds, not "not opened yet". Two gazetteers of one DATA_DIR stand in
// for the two processes: what tells them apart is the builder's temp file, read from disk.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { createGazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { probeEmbeddedGeocoder } from "../../../../src/backends/geocoder/embedded/probe";
import { silentLogger } from "../../../../src/log";
import { tempDir } from "../../../support/app";

test("a gazetteer that has not opened the file says it is being built while another builds it, then what the file holds", async () => {
  const dataDir = tempDir("mapstead-gazetteer-elsewhere-");
  const builder = createGazetteer({ dataDir, log: silentLogger });
  const worker = createGazetteer({ dataDir, log: silentLogger });
  try {
    const before = await probeEmbeddedGeocoder(dataDir, worker);
    expect(before.detail).toContain("not opened yet");
    const built = builder.start();
    expect(builder.status().state).toBe("building");
    expect(worker.status().state).toBe("building");
    const during = await probeEmbeddedGeocoder(dataDir, worker);
    expect(during.status).toBe("degraded");
    expect(during.detail).toContain("being built from the built-in data");
    await built;
    expect(existsSync(builder.path)).toBe(true);
    expect(worker.status().state).toBe("absent");
    // Built by the other process: the worker, not having opened it, tells what the file holds.
    const after = await probeEmbeddedGeocoder(dataDir, worker);
    expect(after.status).toBe("ok");
    expect(after.detail).not.toContain("not opened yet");
    expect(after.detail).toMatch(/^embedded gazetteer: [\d,]+ places and [\d,]+ names in \d+ dataset\(s\) \(.*\), \d+ MiB, built \d{4}-/);
  } finally {
    builder.close();
    worker.close();
  }
}, 60_000);
