// Failed-attempt throttling for logins and setup-token guesses: a sliding window of failures per
// account and per client address. While an identity is over its limit, attempts are refused before the
// (deliberately slow) password check runs, with the seconds until the oldest failure leaves the window.

export interface ThrottleRule {
  max: number;
  windowMs: number;
}

export const ACCOUNT_RULE: ThrottleRule = { max: 5, windowMs: 15 * 60_000 };
export const CLIENT_RULE: ThrottleRule = { max: 20, windowMs: 15 * 60_000 };

const MAX_TRACKED = 50_000;

export function createThrottle(rule: ThrottleRule) {
  const failures = new Map<string, number[]>();

  const recent = (id: string, now: number) => {
    const list = failures.get(id);
    if (!list) return [];
    const kept = list.filter((t) => now - t < rule.windowMs);
    if (kept.length) failures.set(id, kept);
    else failures.delete(id);
    return kept;
  };

  return {
    /** Seconds to wait, or 0 when an attempt may proceed. */
    retryAfterS(id: string, now = Date.now()): number {
      const list = recent(id, now);
      if (list.length < rule.max) return 0;
      return Math.max(1, Math.ceil((list[list.length - rule.max]! + rule.windowMs - now) / 1000));
    },
    /** Records a failure (call before the slow check, so parallel guesses count too); returns its time. */
    fail(id: string, now = Date.now()): number {
      if (!failures.has(id) && failures.size >= MAX_TRACKED) {
        for (const key of failures.keys()) {
          recent(key, now);
          if (failures.size < MAX_TRACKED) break;
        }
        if (failures.size >= MAX_TRACKED) failures.delete(failures.keys().next().value!);
      }
      const list = recent(id, now);
      list.push(now);
      failures.set(id, list.slice(-rule.max * 2));
      return now;
    },
    /** Takes back one recorded failure (the attempt turned out to be right). */
    forgive(id: string, at: number): void {
      const list = failures.get(id);
      const i = list?.indexOf(at) ?? -1;
      if (i >= 0) list!.splice(i, 1);
    },
    reset(id: string): void {
      failures.delete(id);
    },
  };
}

export type Throttle = ReturnType<typeof createThrottle>;
