// PUBLIC_URL's path (config.basePath, "/maps") is where a reverse proxy publishes Mapstead. A proxy that
// strips it (nginx `proxy_pass http://127.0.0.1:8080/;`, Caddy `handle_path /maps/*`) sends Mapstead its
// own routes; one that does not (`proxy_pass http://127.0.0.1:8080;`) sends them under the prefix. Both
// are answered alike: a request whose path starts with the prefix is routed as if the proxy had
// stripped it. config.ts refuses a prefix whose first segment is one of the routes', so no route is
// hidden by it.

/** PUBLIC_URL's path ("/maps"), "" for a bare origin: what every root-relative URL Mapstead writes starts with. */
export function basePathOf(publicUrl: string): string {
  return new URL(publicUrl).pathname.replace(/\/+$/, "");
}

/** The request a stripped copy was made from: Bun knows the client address of that one only. */
const sentAs = new WeakMap<Request, Request>();

/** The request as the socket delivered it (for server.requestIP). */
export function requestAsSent(request: Request): Request {
  return sentAs.get(request) ?? request;
}

/** Whether `path` (a URL path) is the prefix itself or under it. */
export function underBasePath(path: string, basePath: string): boolean {
  return basePath !== "" && path.startsWith(basePath) && (path.length === basePath.length || path[basePath.length] === "/");
}

/** `request` with the prefix taken off its path, or itself when its path does not start with the prefix. */
export function stripBasePath(request: Request, basePath: string): Request {
  if (basePath === "") return request;
  const url = request.url;
  // Bun gives a request whose Host header is no host name (`Host: a/b`) a url of its path alone, from
  // which no Request can be made (new Request threw, and Bun answered a bare 500): such a request is
  // routed as it came, so under the prefix it finds nothing (404).
  const scheme = url.indexOf("://");
  if (scheme === -1) return request;
  const start = url.indexOf("/", scheme + 3);
  if (start === -1) return request;
  const end = url.indexOf("?", start);
  const path = end === -1 ? url.slice(start) : url.slice(start, end);
  if (!underBasePath(path, basePath)) return request;
  const rest = path.slice(basePath.length) || "/";
  const stripped = new Request(url.slice(0, start) + rest + (end === -1 ? "" : url.slice(end)), request);
  sentAs.set(stripped, requestAsSent(request));
  return stripped;
}
