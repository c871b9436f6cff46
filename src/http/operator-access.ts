// Who is the operator of this server, for the answers that carry its details (internal backend URLs,
// paths, fixes) or its metrics: an admin session, or a caller on the server itself (loopback, and not
// relayed by a proxy: behind one, only with TRUST_PROXY and then by the address the proxy names).
// Before the first admin exists, setup needs the details, so anyone sees them.
import type { Config } from "../config";
import type { AuthService } from "../domain/accounts/auth";
import { hasAdmin } from "../domain/accounts/setup-token";
import type { Database } from "bun:sqlite";
import { isOnServerItself, type ServerLike } from "./client-ip";

export interface OperatorAccess {
  /** a loopback caller or an admin session */
  isOperator(request: Request, server: ServerLike): boolean;
  /** the operator, or anyone while no admin exists yet */
  seesDetails(request: Request, server: ServerLike): boolean;
}

export function operatorAccess(config: Config, sqlite: Database, auth: AuthService): OperatorAccess {
  const isOperator = (request: Request, server: ServerLike) => isOnServerItself(request, server, config) || !!auth.sessionFromRequest(request)?.isAdmin;
  return {
    isOperator,
    seesDetails(request, server) {
      if (isOnServerItself(request, server, config)) return true;
      try {
        return !hasAdmin(sqlite) || !!auth.sessionFromRequest(request)?.isAdmin;
      } catch {
        // The database is down (the health page says so): nobody can be told apart, so no details.
        return false;
      }
    },
  };
}
