// First-run setup: a self-contained page (no external assets) where the person holding the one-time
// setup token printed at first start creates the admin account. It posts to /api/v1/setup, which logs
// the new admin in, then sends the browser to the console.
import { addressCheck, addressWarningStyle } from "./address-check";
import { basePathOf } from "../http/base-path";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1d2733}
h1{font-size:1.4rem}label{display:block;margin:.9rem 0 .3rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #8c959f;border-radius:.4rem;font:inherit}
button{margin-top:1.2rem;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:#1f6feb;color:#fff;font:inherit;cursor:pointer}
button[disabled]{opacity:.6}.hint{color:#57606a;font-size:.9rem}#message{margin-top:1rem;padding:.7rem;border-radius:.4rem;display:none}
#message.error{display:block;background:#ffebe9;color:#82071e}#message.ok{display:block;background:#dafbe1;color:#116329}code{font-size:.9rem}${addressWarningStyle}`;

export function setupPage(opts: { version: string; complete: boolean; publicUrl: string }): string {
  const check = addressCheck(opts.publicUrl);
  const base = basePathOf(opts.publicUrl);
  const body = opts.complete
    ? `<p>Setup is complete: an admin account exists. <a href="${escape(base)}/console">Open the console</a> and log in.</p>
<p class="hint">More accounts: an admin adds them in the console, or on the server run <code>mapstead users create --email …</code>.</p>`
    : `${check.html}
<p class="hint">Create the first admin account. The one-time setup token is in the file <code>DATA_DIR/setup-token</code> on
the server (readable only by the user running Mapstead; it is also shown at start-up when Mapstead runs in a terminal).
A lost file or token is replaced by restarting Mapstead: every start while no admin exists writes a new one.
On the server you can instead run <code>mapstead admin create --email …</code>.</p>
<form id="setup" novalidate>
<label for="token">Setup token</label><input id="token" name="token" autocomplete="off" required spellcheck="false">
<label for="email">Admin email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password <span class="hint">(at least 10 characters)</span></label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
<label for="confirm">Repeat password</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit">Create admin account</button>
</form>
<div id="message" role="status" aria-live="polite"></div>
<script>
${check.script}
const form = document.getElementById("setup"), msg = document.getElementById("message");
const show = (text, kind) => { msg.textContent = text; msg.className = kind; };
form.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(form);
  if (f.get("password") !== f.get("confirm")) return show("The two passwords differ.", "error");
  if ([...String(f.get("password"))].length < 10) return show("The password needs at least 10 characters.", "error");
  const button = form.querySelector("button"); button.disabled = true;
  try {
    const res = await fetch(${JSON.stringify(`${base}/api/v1/setup`)}, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: String(f.get("token")).trim(), email: f.get("email"), password: f.get("password") }) });
    if (res.ok) { show("Admin account created; you are logged in. Opening the console…", "ok"); setTimeout(() => location.assign(${JSON.stringify(`${base}/console`)}), 800); return; }
    const err = await res.json().catch(() => null);
    const retry = res.headers.get("retry-after");
    show((err && err.error ? err.error.message : "Setup failed (HTTP " + res.status + ")") + (retry ? " Try again in " + retry + " s." : ""), "error");
  } catch (e) { show("Could not reach the server: " + e.message, "error"); }
  button.disabled = false;
});
</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mapstead setup</title><link rel="icon" href="${escape(base)}/favicon.ico"><style>${STYLE}</style></head><body>
<h1>Mapstead ${escape(opts.version)}: first-run setup</h1>
${body}
</body></html>`;
}
