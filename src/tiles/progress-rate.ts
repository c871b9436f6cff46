// Rate and ETA for a processing job, from the progress messages of the worker: features per second
// while reading, tiles per second while tiling, and the time left from the overall fraction done.
import type { Phase, Progress } from "./process";

export interface ProgressStats {
  phase: Phase;
  features: number;
  tiles: number;
  /** per second in the current phase (features while reading, tiles while tiling); null otherwise */
  rate: number | null;
  rate_unit: "features/s" | "tiles/s" | null;
  /** seconds left at the pace so far; null until there is enough to tell */
  eta_seconds: number | null;
}

export function progressTracker(startedMs: number) {
  let phase: Phase | null = null;
  let phaseStartMs = startedMs;
  let phaseStartCount = 0;
  return (p: Progress, nowMs: number): ProgressStats => {
    const unit = p.phase === "reading" ? "features/s" : p.phase === "tiling" ? "tiles/s" : null;
    const count = p.phase === "reading" ? p.features : p.tiles;
    if (p.phase !== phase) {
      phase = p.phase;
      phaseStartMs = nowMs;
      phaseStartCount = count;
    }
    const inPhase = (nowMs - phaseStartMs) / 1000;
    const rate = unit && inPhase >= 0.5 ? Math.round((count - phaseStartCount) / inPhase) : null;
    const elapsed = (nowMs - startedMs) / 1000;
    const eta = p.progress >= 0.02 && p.progress < 1 ? Math.round((elapsed * (1 - p.progress)) / p.progress) : p.progress >= 1 ? 0 : null;
    return { phase: p.phase, features: p.features, tiles: p.tiles, rate, rate_unit: rate === null ? null : unit, eta_seconds: eta };
  };
}
