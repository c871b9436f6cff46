// /health/detailed and the landing page as anyone else sees them: each component's status, latency and
// backend kind (what a monitor needs), but not its detail or fix, which name internal backend URLs, paths
// and settings of the operator's network.
import type { DetailedHealth } from "./service";

export const OPERATOR_ONLY_DETAIL = "Details and fixes are shown to admins (signed in) and on the server itself (mapstead preflight)";

export function withoutOperatorDetails(report: DetailedHealth): DetailedHealth {
  const components: DetailedHealth["components"] = {};
  for (const [name, c] of Object.entries(report.components)) {
    components[name] = { status: c.status, ...(c.latency_ms !== undefined ? { latency_ms: c.latency_ms } : {}), ...(c.backend ? { backend: c.backend } : {}), detail: c.status === "ok" ? "ok" : OPERATOR_ONLY_DETAIL };
  }
  return { ...report, components };
}
