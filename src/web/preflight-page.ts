// The preflight checks as a self-contained page (no external assets): what is set up, what is not,
// and what to do about it.
import type { PreflightReport } from "../domain/preflight/checks";
import { basePathOf } from "../http/base-path";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** For a browser that may not see the checks (setup is done, and it is no admin): where they can be seen. */
export function preflightHiddenPage(version: string, publicUrl: string): string {
  const base = escape(basePathOf(publicUrl));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mapstead setup check</title><link rel="icon" href="${base}/favicon.ico"><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d2733}</style></head><body>
<h1>Mapstead ${escape(version)}: setup check</h1>
<p>Once an admin account exists, the setup checks are shown to admins only. <a href="${base}/console">Sign in to the console</a> as an admin and open this page again, or run <code>mapstead preflight</code> on the server.</p>
<p><a href="${base}/">Overview</a></p>
</body></html>`;
}
const ICON = { pass: "✔", warn: "!", fail: "✖" } as const;

/** What needs doing comes first: failures, then warnings, then what passed. */
const ORDER = { fail: 0, warn: 1, pass: 2 } as const;

export function preflightPage(report: PreflightReport, version: string, needsSetup: boolean, publicUrl: string): string {
  const base = escape(basePathOf(publicUrl));
  const rows = [...report.checks]
    .sort((a, b) => ORDER[a.status] - ORDER[b.status])
    .map(
      (c) => `<li class="${c.status}"><span class="icon" aria-label="${c.status}">${ICON[c.status]}</span><div><strong>${escape(c.id)}</strong> <span class="status">${c.status}</span><p>${escape(c.message)}</p>${c.fix ? `<p class="fix">Fix: ${escape(c.fix)}</p>` : ""}</div></li>`,
    )
    .join("\n");
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const warned = report.checks.filter((c) => c.status === "warn").length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mapstead setup check</title><link rel="icon" href="${base}/favicon.ico">
<style>
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d2733}
h1{font-size:1.5rem}ul{list-style:none;padding:0}li{display:flex;gap:.8rem;padding:.8rem;border-radius:.5rem;margin:.5rem 0;background:#f4f6f8}
.icon{font-weight:bold;width:1.5rem;text-align:center}.pass .icon{color:#1a7f37}.warn .icon{color:#9a6700}.fail .icon{color:#cf222e}
.fail{background:#ffebe9}.warn{background:#fff8c5}p{margin:.2rem 0}.fix{font-family:ui-monospace,monospace;font-size:.9rem}.status{font-size:.8rem;text-transform:uppercase;color:#57606a}
.summary{padding:.8rem;border-radius:.5rem;background:${failed ? "#ffebe9" : "#dafbe1"}}
</style></head><body>
<h1>Mapstead ${escape(version)}: setup check</h1>
<p class="summary">${failed ? `${failed} check(s) failed` : "Nothing failed"}${warned ? `, ${warned} warning(s)` : ""}. The same checks run from the command line: <code>mapstead preflight</code>.</p>
<ul>
${rows}
</ul>
<p><a href="${base}/console">Open the console</a>${needsSetup ? ` · <a href="${base}/setup">First-run setup</a>` : ""} · <a href="${base}/">Overview</a></p>
</body></html>`;
}
