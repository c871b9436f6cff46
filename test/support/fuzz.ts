// Helpers of the fuzz tests: a seeded PRNG (mulberry32) so every run sends the same cases, and one check
// that an answer is a 2xx or a 4xx in the CONTRACT envelope with a message, within a hang guard.
import { expect } from "bun:test";

export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
export type Rng = ReturnType<typeof prng>;

/** Numbers that break naive parsers. */
export const NASTY_NUMBERS = ["1e308", "-1e308", "99999999999999999999999", "NaN", "Infinity", "-Infinity", "-0", "1e5", ".5", "5.", "0x10", "+1", "--1", "1..2", "", " ", "0.0000000000000000001", "361", "-181", "91", "9".repeat(400)];
/** Characters that break naive text handling (already percent-encoded where raw they would not survive a URL). */
export const NASTY_TEXT = ["%00", "%EF%BB%BF", "%E2%80%AE", "%F0%9D%9F%99", "%C3%A9", "e%CC%81", "%ED%A0%80", "%FF", "%zz", "%", "%2", "%252F", "%2C", "%28", "%29", "%EF%BC%8C", "%EF%BC%88", "%E3%80%80", "%0A", "%09", "+", ";", "&", "=", "#"];

/** Mutations of a valid string: truncation, a number swapped for a nasty one, inserted junk, repeats. */
export function mutate(rng: Rng, s: string): string {
  switch (rng.int(8)) {
    case 0:
      return s.slice(0, rng.int(s.length + 1));
    case 1: {
      const nums = [...s.matchAll(/-?\d+(?:\.\d+)?/g)];
      if (nums.length === 0) return s + rng.pick(NASTY_NUMBERS);
      const m = rng.pick(nums);
      return s.slice(0, m.index) + rng.pick(NASTY_NUMBERS) + s.slice(m.index! + m[0].length);
    }
    case 2: {
      const at = rng.int(s.length + 1);
      return s.slice(0, at) + rng.pick(NASTY_TEXT) + s.slice(at);
    }
    case 3: {
      const seps = [...s.matchAll(/[,()+\-|:[\]{}]/g)];
      if (seps.length === 0) return s + ",,";
      const m = rng.pick(seps);
      return s.slice(0, m.index) + m[0].repeat(2 + rng.int(50)) + s.slice(m.index! + 1);
    }
    case 4: {
      // drop one delimited part
      const parts = s.split(",");
      parts.splice(rng.int(parts.length), 1, "");
      return parts.join(",");
    }
    case 5:
      return s + "," + s;
    case 6:
      return s.replace(/[a-z]/i, (c) => (rng.int(2) ? c.toUpperCase() : "%" + c.charCodeAt(0).toString(16)));
    default: {
      const at = rng.int(s.length + 1);
      return s.slice(0, at) + s.slice(at + 1 + rng.int(4));
    }
  }
}

export interface Outcome {
  status: number;
  ms: number;
}

/**
 * Sends one request and checks its answer: a 2xx, or a 4xx with `{"error":{"code","message"}}` (a
 * non-empty message). A 5xx or an answer after `guardMs` fails with the case printed.
 */
export async function expectSane(url: string, init: RequestInit = {}, guardMs = 20_000): Promise<Outcome> {
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(guardMs) });
  } catch (err) {
    throw new Error(`no answer within ${guardMs} ms (or a dropped connection) for ${url.slice(0, 600)}: ${err}`);
  }
  const body = await res.arrayBuffer();
  const ms = performance.now() - started;
  const text = () => new TextDecoder().decode(body).slice(0, 500);
  // Bun itself answers a request head over its limit (16 KiB unless run with --max-http-header-size, as
  // `bun start` is) with a bare 431 before the app sees it (README, "Building the single binary").
  if (res.status === 431 && url.length > 16 * 1024 - 512) return { status: 431, ms };
  if (res.status >= 500) throw new Error(`${res.status} for ${url.slice(0, 600)}: ${text()}`);
  if (res.status >= 400) {
    let env: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      env = JSON.parse(new TextDecoder().decode(body));
    } catch {
      throw new Error(`${res.status} without a JSON envelope for ${url.slice(0, 600)}: ${text()}`);
    }
    const ok = typeof env?.error?.code === "string" && typeof env.error.message === "string" && env.error.message.length > 0;
    // A message names the problem; it does not echo kilobytes of what was sent.
    if (ok && (env!.error!.message as string).length > 600) throw new Error(`${res.status} with a ${(env!.error!.message as string).length}-character message for ${url.slice(0, 600)}: ${text()}`);
    if (!ok) throw new Error(`${res.status} without the error envelope for ${url.slice(0, 600)}: ${text()}`);
    if (process.env.FUZZ_VERBOSE) console.log(res.status, String(env!.error!.message).slice(0, 200), "<=", decodeURIComponentSafe(url.slice(url.indexOf("/", 8), 300)));
  } else if (process.env.FUZZ_VERBOSE) console.log(res.status, "<=", decodeURIComponentSafe(url.slice(url.indexOf("/", 8), 300)));
  expect(res.status).toBeLessThan(500);
  return { status: res.status, ms };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
