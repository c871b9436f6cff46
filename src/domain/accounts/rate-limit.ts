// Token buckets per caller and service group: `limit` tokens, refilled continuously at limit per minute,
// so a quiet client may burst up to a minute's worth. In memory: a restart refilling every bucket is
// harmless. With several HTTP workers the supervisor keeps the shared buckets (`spend` applies what the
// workers took) and each worker `adopt`s the shared level (src/cluster/shared-counters.ts).

export interface BucketResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the bucket is full again */
  resetAt: number;
  /** seconds until one token is available (only when refused) */
  retryAfterS: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
  limit: number;
}

const MAX_BUCKETS = 100_000;

export function createRateLimiter(now: () => number = Date.now) {
  /** caller id -> group -> bucket (two lookups on existing strings beat hashing a fresh joined key) */
  const buckets = new Map<string, Map<string, Bucket>>();
  let count = 0;

  /** The bucket of (id, group), refilled up to `t`. */
  function bucketAt(id: string, group: string, limit: number, t: number): Bucket {
    let groups = buckets.get(id);
    if (!groups) buckets.set(id, (groups = new Map()));
    let b = groups.get(group);
    if (!b || b.limit !== limit) {
      if (!b && count >= MAX_BUCKETS) prune(t);
      if (!b) count++;
      b = { tokens: limit, updatedAt: t, limit };
      groups.set(group, b);
    } else {
      const perMs = limit / 60_000;
      b.tokens = Math.min(limit, b.tokens + Math.max(0, t - b.updatedAt) * perMs);
      b.updatedAt = t;
    }
    return b;
  }

  function levelOf(b: Bucket, limit: number, t: number, allowed: boolean, n: number): BucketResult {
    const perMs = limit / 60_000;
    return {
      allowed,
      limit,
      remaining: Math.floor(b.tokens),
      resetAt: Math.ceil((t + (limit - b.tokens) / perMs) / 1000),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil((n - b.tokens) / perMs / 1000)),
    };
  }

  /** Takes `n` tokens, all or none (a batch of n jobs); a refusal takes nothing. */
  function take(id: string, group: string, limit: number, n = 1): BucketResult {
    const t = now();
    const b = bucketAt(id, group, limit, t);
    const allowed = b.tokens >= n;
    if (allowed) b.tokens -= n;
    return levelOf(b, limit, t, allowed, n);
  }

  /** Returns `n` tokens taken by a call that was then refused (quota, a batch that does not fit). */
  function giveBack(id: string, group: string, limit: number, n: number): BucketResult {
    const t = now();
    const b = bucketAt(id, group, limit, t);
    b.tokens = Math.min(limit, b.tokens + n);
    return levelOf(b, limit, t, true, 0);
  }

  /** Drops buckets that have refilled completely (they are indistinguishable from new ones). */
  function prune(t: number) {
    for (const [id, groups] of buckets) {
      for (const [group, b] of groups)
        if (b.tokens + (t - b.updatedAt) * (b.limit / 60_000) >= b.limit) {
          groups.delete(group);
          count--;
        }
      if (!groups.size) buckets.delete(id);
    }
  }

  /**
   * Takes `n` tokens that were already granted elsewhere (a worker's calls): the level may go below
   * zero, and then refills from there, so calls admitted over the limit are paid back. A negative `n`
   * is tokens a worker gave back. Returns the level.
   */
  function spend(id: string, group: string, limit: number, n: number): { tokens: number; updatedAt: number } {
    const b = bucketAt(id, group, limit, now());
    b.tokens = Math.min(limit, Math.max(-limit, b.tokens - n));
    return { tokens: b.tokens, updatedAt: b.updatedAt };
  }

  /** Sets a bucket to a shared level measured at `updatedAt`, less `own` tokens taken here and not in it yet. */
  function adopt(id: string, group: string, limit: number, tokens: number, updatedAt: number, own: number): void {
    const t = now();
    const b = bucketAt(id, group, limit, t);
    b.tokens = Math.min(limit, tokens + Math.max(0, t - updatedAt) * (limit / 60_000)) - own;
    b.updatedAt = t;
  }

  return { take, giveBack, spend, adopt, size: () => count };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
