// What the console knows at run time: the session (with its CSRF token, in memory only), the selected
// organization, and a view counter that makes stale pollers and callbacks stop after a navigation.

export const state = {
  session: null, // {user, csrf_token, orgs, ...}
  org: null, // slug
  view: 0, // bumped on every navigation; stale pollers and callbacks stop when it changes
  map: null,
};

/**
 * PUBLIC_URL's path prefix ("/maps", or "" at the root of the host), written by the server into
 * <html data-base>: every root-relative URL the console asks for starts with it (api.js, withBase).
 */
export const base = document.documentElement.dataset.base || "";
/** A root-relative path of the server ("/api/v1/...") as the browser must ask for it. */
export const withBase = (path) => (path.startsWith("/") ? base + path : path);

export const enc = encodeURIComponent;
export const current = (view) => view === state.view;
export const orgPath = (rest = "") => `/api/v1/orgs/${enc(state.org)}${rest}`;
export const orgInfo = () => state.session.orgs.find((o) => o.slug === state.org);
export const canAdmin = () => state.session.user.is_admin || ["owner", "admin"].includes(orgInfo()?.role);
