// Failed-attempt backoff for logins and setup-token guesses. Failures slow down whoever makes them: past
// a few free failures, each further failure doubles the wait before that identity's next attempt (from
// 1 s, or 1 min for an address failing across many accounts, up to 15 min), counted over a sliding 15-minute window. Identities are a client address,
// and an (account, address) pair. An account is never locked as such: a client with no recent failures
// of its own always reaches the password check, so an attacker who knows an e-mail cannot keep its owner
// out. Failures on an account from many addresses (a spread-out guess) raise the wait of every client
// that has itself failed on that account. Attempts are refused before the deliberately slow password check.

export interface BackoffRule {
  /** failures allowed without any wait */
  free: number;
  /** the first wait past the free failures; each further failure doubles it */
  firstWaitMs: number;
  windowMs: number;
  maxWaitMs: number;
}

// An address failing on many accounts is spraying guesses: its waits start at a minute.
export const CLIENT_RULE: BackoffRule = { free: 20, firstWaitMs: 60_000, windowMs: 15 * 60_000, maxWaitMs: 15 * 60_000 };
export const CLIENT_ON_ACCOUNT_RULE: BackoffRule = { free: 5, firstWaitMs: 1000, windowMs: 15 * 60_000, maxWaitMs: 15 * 60_000 };
/** failures on one account, from all addresses, before failing clients of that account wait longer */
export const ACCOUNT_RULE: BackoffRule = { free: 10, firstWaitMs: 1000, windowMs: 15 * 60_000, maxWaitMs: 15 * 60_000 };

const MAX_TRACKED = 50_000;

/** Milliseconds `failures` (times, oldest first) make the next attempt wait from `now`. */
function waitMs(rule: BackoffRule, failures: number[], now: number): number {
  const over = failures.length - rule.free;
  if (over < 0) return 0;
  const wait = Math.min(rule.maxWaitMs, rule.firstWaitMs * 2 ** over);
  return Math.max(0, failures[failures.length - 1]! + wait - now);
}

export function createBackoff(rule: BackoffRule) {
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
    /** Milliseconds until the identity may try again (0: now). */
    waitMs: (id: string, now = Date.now()) => waitMs(rule, recent(id, now), now),
    count: (id: string, now = Date.now()) => recent(id, now).length,
    /** Records a failure (before the slow check, so parallel guesses count too); returns its time. */
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
      // enough history for the longest wait; older entries cannot change the answer
      failures.set(id, list.slice(-(rule.free + 32)));
      return now;
    },
    /** Takes back one recorded failure (the attempt turned out to be right). */
    forgive(id: string, at: number): void {
      const list = failures.get(id);
      const i = list?.lastIndexOf(at) ?? -1;
      if (i >= 0) list!.splice(i, 1);
    },
    reset(id: string): void {
      failures.delete(id);
    },
  };
}

export type Backoff = ReturnType<typeof createBackoff>;

/** The three identities of a login attempt together. */
export function createLoginBackoff() {
  const perClient = createBackoff(CLIENT_RULE);
  const perPair = createBackoff(CLIENT_ON_ACCOUNT_RULE);
  const perAccount = createBackoff(ACCOUNT_RULE);
  const pair = (account: string, ip: string) => `${account}\n${ip}`;

  return {
    /** Seconds the client must wait before this attempt (0: go ahead). */
    retryAfterS(ip: string, account: string | null, now = Date.now()): number {
      let wait = perClient.waitMs(ip, now);
      if (account !== null) {
        const own = perPair.count(pair(account, ip), now);
        wait = Math.max(wait, perPair.waitMs(pair(account, ip), now));
        // A spread-out guess on this account slows only the clients taking part in it.
        if (own > 0) wait = Math.max(wait, perAccount.waitMs(account, now));
      }
      return wait > 0 ? Math.ceil(wait / 1000) : 0;
    },
    /** Counts the attempt as failed until `succeeded` says otherwise. */
    attempt(ip: string, account: string | null, now = Date.now()) {
      const at = perClient.fail(ip, now);
      if (account !== null) {
        perPair.fail(pair(account, ip), now);
        perAccount.fail(account, now);
      }
      return {
        succeeded() {
          perClient.forgive(ip, at);
          if (account === null) return;
          perPair.reset(pair(account, ip));
          perAccount.reset(account);
        },
      };
    },
  };
}
