// Why a server could not (or would not) listen on HOST:PORT, in words an operator can act on: shared by
// `mapstead serve`, which names the cause when it cannot start, and the preflight, which opens the port
// for a moment so that a port taken by another program fails the check instead of the service's start.

export interface ListenProblem {
  /** a failure (serve cannot start), or a warning (it may, given what this process lacks) */
  status: "fail" | "warn";
  message: string;
  fix: string;
}

/** What a failed listen means; null for an error of another kind (reported as it came). */
export function explainListenError(host: string, port: number, err: unknown): ListenProblem | null {
  const code = (err as { code?: string } | null)?.code;
  if (code === "EADDRINUSE")
    return {
      status: "fail",
      message: `Port ${port} is already in use on ${host} by another program`,
      fix: `Stop that program (ss -ltnp 'sport = :${port}' names it) or set PORT to a free port`,
    };
  if (code === "EACCES")
    // The service may hold CAP_NET_BIND_SERVICE (the systemd unit's AmbientCapabilities) where the
    // process checking does not, so this alone does not fail the preflight.
    return {
      status: "warn",
      message: `Ports below 1024 need root or the CAP_NET_BIND_SERVICE capability, which this process lacks: PORT=${port} cannot be opened here`,
      fix: "Use a port of 1024 or more (a reverse proxy can listen on 80/443), or grant the service CAP_NET_BIND_SERVICE (AmbientCapabilities in a systemd override, see the README)",
    };
  if (code === "EADDRNOTAVAIL")
    return {
      status: "fail",
      message: `HOST=${host} is not an address of this machine, so nothing can listen on it`,
      fix: "Set HOST to 0.0.0.0 (every interface), 127.0.0.1 (this machine only) or one of this machine's addresses",
    };
  return null;
}

/**
 * Opens HOST:PORT for a moment, as serve will (no port sharing), and closes it again; returns the port
 * (the one chosen for PORT=0). Throws what listening throws.
 */
export function probePort(host: string, port: number): number {
  const probe = Bun.serve({ hostname: host, port, reusePort: false, fetch: () => new Response(null, { status: 503 }) });
  const opened = probe.port!;
  probe.stop(true);
  return opened;
}

/** Null when HOST:PORT can be opened (or PORT is 0, a port chosen at start), else what stops it. */
export function listenProblem(host: string, port: number): ListenProblem | null {
  if (port === 0) return null;
  try {
    probePort(host, port);
    return null;
  } catch (err) {
    return explainListenError(host, port, err) ?? { status: "fail", message: `Cannot listen on ${host}:${port}: ${err instanceof Error ? err.message : String(err)}`, fix: "Choose another PORT or HOST" };
  }
}
