// The address a request came from. X-Forwarded-For is honoured only with TRUST_PROXY. Requests handled
// in-process (app.handle in tests, no socket) count as loopback.
import type { Config } from "../config";

export type ServerLike = { requestIP(req: Request): { address: string } | null } | null | undefined;

export function clientIp(request: Request, server: ServerLike, config: Config): string {
  if (config.trustProxy) {
    // The last entry is the one our proxy appended; earlier ones are whatever the client claimed
    // (a client sending "X-Forwarded-For: 127.0.0.1" must not pass for a loopback caller).
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "127.0.0.1";
}

export function isLoopbackIp(ip: string): boolean {
  return ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");
}
