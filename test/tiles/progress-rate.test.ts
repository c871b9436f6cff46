import { expect, test } from "bun:test";
import { progressTracker } from "../../src/tiles/progress-rate";

test("rate counts within the phase; ETA follows the overall fraction", () => {
  const track = progressTracker(0);
  expect(track({ progress: 0.01, phase: "reading", features: 100, tiles: 0 }, 100)).toEqual({ phase: "reading", features: 100, tiles: 0, rate: null, rate_unit: null, eta_seconds: null });
  expect(track({ progress: 0.2, phase: "reading", features: 2100, tiles: 0 }, 2100)).toEqual({ phase: "reading", features: 2100, tiles: 0, rate: 1000, rate_unit: "features/s", eta_seconds: 8 });
  // A new phase starts its own count: tiles per second from the moment tiling began.
  expect(track({ progress: 0.4, phase: "tiling", features: 5000, tiles: 10 }, 4000).rate).toBeNull();
  expect(track({ progress: 0.5, phase: "tiling", features: 5000, tiles: 210 }, 6000)).toMatchObject({ rate: 100, rate_unit: "tiles/s", eta_seconds: 6 });
  expect(track({ progress: 1, phase: "writing", features: 5000, tiles: 900 }, 9000)).toMatchObject({ rate: null, eta_seconds: 0 });
});
