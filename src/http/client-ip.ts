// The address a request came from. X-Forwarded-For is honoured only with TRUST_PROXY. Requests handled
// in-process (app.handle in tests, no socket) count as loopback.
import type { Config } from "../config";
import { requestAsSent } from "./base-path";

export type ServerLike = { requestIP(req: Request): { address: string } | null } | null | undefined;

export function clientIp(request: Request, server: ServerLike, config: Config): string {
  if (config.trustProxy) {
    // The last entry is the one our proxy appended; earlier ones are whatever the client claimed
    // (a client sending "X-Forwarded-For: 127.0.0.1" must not pass for a loopback caller).
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  // A request routed without PUBLIC_URL's path prefix is a copy (base-path.ts): Bun knows the address of the original only.
  return server?.requestIP(requestAsSent(request))?.address ?? "127.0.0.1";
}

export function isLoopbackIp(ip: string): boolean {
  return ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");
}

/** Headers a reverse proxy adds: a loopback request that carries one came from elsewhere through it. */
const PROXY_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"];

/**
 * Whether the caller is on the server itself: a loopback address, and not relayed by a proxy on this
 * machine. Behind nginx without TRUST_PROXY every visitor arrives from 127.0.0.1, and must not get the
 * operator's metrics and details for it.
 */
export function isOnServerItself(request: Request, server: ServerLike, config: Config): boolean {
  if (!isLoopbackIp(clientIp(request, server, config))) return false;
  return config.trustProxy || !PROXY_HEADERS.some((h) => request.headers.has(h));
}

/**
 * What one client is in per-address limits: an IPv4 address itself, an IPv6 address by its /64 (a
 * subscriber's prefix: whoever holds one can send from any of its 2^64 addresses, and would otherwise
 * get that many budgets). An IPv4 address mapped into IPv6 is the IPv4 address.
 */
export function clientNetwork(ip: string): string {
  const address = ip.replace(/%.*$/, "").toLowerCase();
  if (!address.includes(":")) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  const [head, tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
