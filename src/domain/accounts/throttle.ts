// Failed-attempt backoff for logins and setup-token guesses. Failures slow down whoever makes them: past
// a few free failures, each further failure doubles the wait before that identity's next attempt (from
// 1 s, or 1 min for an address failing across many accounts, up to 15 min), counted over a sliding 15-minute window. Identities are a client address,
// and an (account, address) pair. An account is never locked as such: a client with no recent failures
// of its own always reaches the password check, so an attacker who knows an e-mail cannot keep its owner
// out. Failures on an account from many addresses (a spread-out guess) raise the wait of every client
// that has itself failed on that account. Attempts are refused before the deliberately slow password check.
// Failures are kept in SQLite, so every process on the data directory (a cluster's workers) counts them all.
import type { Database } from "bun:sqlite";

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

/** The longest window of the rules: failures older than this change no answer and are pruned. */
const WINDOW_MS = Math.max(CLIENT_RULE.windowMs, CLIENT_ON_ACCOUNT_RULE.windowMs, ACCOUNT_RULE.windowMs);

/** Milliseconds `count` failures, the latest at `last`, make the next attempt wait from `now`. */
function waitMs(rule: BackoffRule, count: number, last: number | null, now: number): number {
  const over = count - rule.free;
  if (over < 0 || last === null) return 0;
  const wait = Math.min(rule.maxWaitMs, rule.firstWaitMs * 2 ** over);
  return Math.max(0, last + wait - now);
}

export interface LoginAttempt {
  /** Seconds the client must wait (0: the attempt goes ahead and counts as failed until `succeeded`). */
  retryAfterS: number;
  /** The attempt turned out right: its failure is taken back and the account's record cleared. */
  succeeded(): void;
}

/**
 * The three identities of a login attempt together. Failures live in SQLite (login_failures), not in
 * this process's memory: a cluster's workers share the port, so counts kept per worker gave an attacker
 * opening new connections WORKERS x the guesses. Each decision and its record are one write
 * transaction, so parallel guesses at any worker are all counted, exactly. Logins are rare and each
 * costs an argon2 check, so a few indexed statements per attempt are nothing beside it.
 */
export function createLoginBackoff(sqlite: Database) {
  const stats = sqlite.query<{ n: number; last: number | null }, [string, number]>("SELECT COUNT(*) AS n, MAX(at) AS last FROM login_failures WHERE identity = ? AND at > ?");
  const insert = sqlite.query<{ id: number }, [string, number]>("INSERT INTO login_failures (identity, at) VALUES (?, ?) RETURNING id");
  const removeOne = sqlite.query<unknown, [number]>("DELETE FROM login_failures WHERE id = ?");
  const removeAll = sqlite.query<unknown, [string]>("DELETE FROM login_failures WHERE identity = ?");
  const prune = sqlite.query<unknown, [number]>("DELETE FROM login_failures WHERE at <= ?");

  const client = (ip: string) => `client\n${ip}`;
  const pair = (account: string, ip: string) => `pair\n${account}\n${ip}`;
  const accountOf = (account: string) => `account\n${account}`;
  const waitOf = (rule: BackoffRule, id: string, now: number) => {
    const { n, last } = stats.get(id, now - rule.windowMs)!;
    return { count: n, ms: waitMs(rule, n, last, now) };
  };

  /** Seconds the client must wait before this attempt (0: go ahead). */
  function retryAfterS(ip: string, account: string | null, now = Date.now()): number {
    let wait = waitOf(CLIENT_RULE, client(ip), now).ms;
    if (account !== null) {
      const own = waitOf(CLIENT_ON_ACCOUNT_RULE, pair(account, ip), now);
      wait = Math.max(wait, own.ms);
      // A spread-out guess on this account slows only the clients taking part in it.
      if (own.count > 0) wait = Math.max(wait, waitOf(ACCOUNT_RULE, accountOf(account), now).ms);
    }
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  /** Decides, and when the attempt may go ahead records it as failed (before the slow password check). */
  const begin = sqlite.transaction((ip: string, account: string | null, now: number): LoginAttempt => {
    prune.run(now - WINDOW_MS);
    const wait = retryAfterS(ip, account, now);
    if (wait > 0) return { retryAfterS: wait, succeeded() {} };
    const clientRow = insert.get(client(ip), now)!.id;
    if (account !== null) {
      insert.run(pair(account, ip), now);
      insert.run(accountOf(account), now);
    }
    return {
      retryAfterS: 0,
      succeeded() {
        removeOne.run(clientRow);
        if (account === null) return;
        removeAll.run(pair(account, ip));
        removeAll.run(accountOf(account));
      },
    };
  });

  return {
    retryAfterS,
    /** One login (or setup-token) attempt of `ip` on `account` (null: no account, a setup token). */
    attempt(ip: string, account: string | null, now = Date.now()): LoginAttempt {
      // A throttled client is answered from a plain read: a flood of refused attempts (they cost no
      // password check) never queues for the database's write lock. The transaction checks again.
      const wait = retryAfterS(ip, account, now);
      if (wait > 0) return { retryAfterS: wait, succeeded() {} };
      return begin.immediate(ip, account, now);
    },
  };
}
