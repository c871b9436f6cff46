// The management API client: JSON in and out, the session's CSRF token on every unsafe request (kept
// in memory, never in storage or URLs), API errors as ApiError with the envelope's code, message and
// details. A 401 on a session call means the session ended: the handler set with onSessionEnded runs.
import { state, withBase } from "./state.js";

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function errorFrom(status, text) {
  try {
    const body = JSON.parse(text);
    if (body && body.error) return new ApiError(status, body.error.code, body.error.message, body.error.details);
  } catch {}
  return new ApiError(status, "HTTP_" + status, `The server answered HTTP ${status}`);
}

let sessionEnded = null;
/** Who shows the sign-in form when a call finds the session gone (set once by the entry module). */
export function onSessionEnded(handler) {
  sessionEnded = handler;
}

function onUnauthorized(err) {
  if (err.status === 401 && state.session && !String(err.code).startsWith("KEY")) {
    state.session = null;
    sessionEnded?.("Your session ended; sign in again.");
  }
}

/** `path` is the server's own ("/api/v1/..."): the PUBLIC_URL path prefix is added here. */
export async function api(method, path, body, extra = {}) {
  const headers = { accept: "application/json", ...(extra.headers || {}) };
  if (method !== "GET" && method !== "HEAD" && state.session) headers["x-csrf-token"] = state.session.csrf_token;
  let payload;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(withBase(path), { method, headers, body: payload, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new ApiError(0, "NETWORK", "The server cannot be reached; check that Mapstead is running");
  }
  const text = await res.text();
  if (!res.ok) {
    const err = errorFrom(res.status, text);
    if (!extra.quiet401) onUnauthorized(err);
    throw err;
  }
  return text ? JSON.parse(text) : null;
}

/** Upload with XMLHttpRequest for upload progress events; resolves with the parsed JSON answer. */
export function upload(method, path, body, onProgress, contentType, control = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    control.abort = () => xhr.abort();
    xhr.open(method, withBase(path));
    xhr.withCredentials = true;
    xhr.setRequestHeader("accept", "application/json");
    xhr.setRequestHeader("x-csrf-token", state.session.csrf_token);
    if (contentType) xhr.setRequestHeader("content-type", contentType);
    xhr.upload.addEventListener("progress", (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0));
    xhr.addEventListener("load", () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(xhr.responseText ? JSON.parse(xhr.responseText) : null);
      } else {
        const err = errorFrom(xhr.status, xhr.responseText);
        onUnauthorized(err);
        reject(err);
      }
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "NETWORK", "The upload was interrupted (network error or the server closed the connection)")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "ABORTED", "The upload was cancelled")));
    xhr.send(body);
  });
}
