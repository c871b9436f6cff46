// Signing in and out, and finding an existing session when the page opens.
import { api } from "../lib/api.js";
import { $ } from "../lib/dom.js";
import { destroyMap } from "../lib/map.js";
import { state } from "../lib/state.js";

export function showLogin(message) {
  destroyMap();
  state.view++;
  $("#app-view").hidden = true;
  $("#login-view").hidden = false;
  document.title = "Sign in · Mapstead console";
  const err = $("#login-error");
  if (message) {
    err.textContent = message;
    err.hidden = false;
  } else err.hidden = true;
  $("#login-email").focus();
}

/**
 * The session this browser already has, or null, without a failing request on a plain visit: the
 * session cookie is HttpOnly, so the server marks the page (<body data-session="cookie">) when the
 * request carried one, and only then is GET /api/v1/session asked. A cookie whose session has ended
 * (idle timeout, revoked) is cleared with DELETE /api/v1/session, so its 401 shows up once, not on
 * every visit.
 */
export async function resumeSession() {
  if (document.body.dataset.session !== "cookie") return null;
  try {
    return await api("GET", "/api/v1/session", undefined, { quiet401: true });
  } catch (err) {
    if (err.status !== 401) throw err;
    await api("DELETE", "/api/v1/session").catch(() => {});
    return null;
  }
}

/** Wires the sign-in form and the sign-out button; `onSignedIn(session)` opens the console. */
export function bindLogin(onSignedIn) {
  $("#login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const btn = $("#login-form button[type=submit]");
    const err = $("#login-error");
    err.hidden = true;
    btn.disabled = true;
    try {
      const session = await api("POST", "/api/v1/session", { email: $("#login-email").value, password: $("#login-password").value }, { quiet401: true });
      $("#login-password").value = "";
      onSignedIn(session);
    } catch (ex) {
      err.textContent = ex.message;
      err.hidden = false;
    } finally {
      btn.disabled = false;
    }
  });
  $("#logout-button").addEventListener("click", async () => {
    try {
      await api("DELETE", "/api/v1/session");
    } catch {}
    state.session = null;
    location.hash = "";
    showLogin();
  });
}
