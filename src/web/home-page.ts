// The page at / : what this appliance is, whether it is healthy, and where to go next. Self-contained
// (no external assets) so it works on an air-gapped machine.
import type { DetailedHealth } from "../domain/health/service";
import { addressCheck, addressWarningStyle } from "./address-check";
import { basePathOf } from "../http/base-path";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const COLOR: Record<string, string> = { ok: "#1a7f37", degraded: "#9a6700", down: "#cf222e", not_configured: "#57606a" };

/**
 * The page and the script it runs inline (the route allows exactly that script by its hash).
 * `check` is addressCheck(publicUrl), made once per process.
 */
export function homePage(health: DetailedHealth, publicUrl: string, needsSetup: boolean, check: { html: string; script: string }): string {
  const base = escape(basePathOf(publicUrl));
  const rows = Object.entries(health.components)
    .map(
      ([name, c]) =>
        `<tr><td>${escape(name)}</td><td style="color:${COLOR[c.status]};font-weight:600">${escape(c.status.replace("_", " "))}</td><td>${escape(c.detail)}${c.fix ? `<br><span class="fix">Fix: ${escape(c.fix)}</span>` : ""}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mapstead</title><link rel="icon" href="${base}/favicon.ico">
<style>
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d2733}
table{border-collapse:collapse;width:100%}td{padding:.4rem .6rem;border-bottom:1px solid #d8dee4;vertical-align:top}
a{color:#0969da}.go{display:flex;gap:.8rem;margin:1rem 0}.go a{padding:.6rem 1rem;border-radius:.5rem;background:#0969da;color:#fff;text-decoration:none;font-weight:600}.go a.alt{background:#f4f6f8;color:#0969da}.fix{color:#57606a;font-size:.9rem}.cta{padding:.8rem;border-radius:.5rem;background:#fff8c5}code{background:#f4f6f8;padding:.1rem .3rem;border-radius:.3rem}${addressWarningStyle}
</style></head><body>
<h1>Mapstead ${escape(health.version)}</h1>
${check.html}
<p>Self-hosted map publishing at <code>${escape(publicUrl)}</code>. Overall status: <strong style="color:${COLOR[health.status]}">${health.status}</strong>.</p>
${needsSetup ? `<p class="cta">No admin account exists yet. <a href="${base}/setup">Create it</a> with the one-time setup token (in <code>DATA_DIR/setup-token</code> on the server, and shown at start-up when Mapstead runs in a terminal), or run <code>mapstead admin create --email you@example.com</code>.</p>` : ""}
<p class="go"><a href="${base}${needsSetup ? "/setup" : "/console"}">${needsSetup ? "Set up the admin account" : "Open the console"}</a><a class="alt" href="${base}/docs">API reference</a></p>
<table>${rows}</table>
<ul>
<li><a href="${base}/console">Management console</a>: organizations, tilesets, styles, API keys</li>
<li><a href="${base}/docs">API reference</a> (<a href="${base}/openapi.json">OpenAPI document</a>)</li>
<li><a href="${base}/setup/preflight">Setup checks</a> with fixes</li>
<li><a href="${base}/health/detailed">Component health (JSON)</a></li>
<li><a href="${base}/fonts/v1">Installed fonts</a></li>
</ul>
${health.status === "ok" ? "" : `<p>More checks, each with its fix: <a href="${base}/setup/preflight">setup checks</a> (for admins once setup is done), or <code>mapstead preflight</code> on the server.</p>`}
<script>${check.script}</script>
</body></html>`;
}
