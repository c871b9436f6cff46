// The one route table. Each route module declares the facts of its routes (CORS kind, body kind,
// metric group) next to them, and everything the HTTP layer needs before or around Elysia's router
// derives from Elysia's own route list: CORS headers and preflights, body limits, metric groups, 405s.
import { Elysia, type AnyElysia } from "elysia";
import { Memoirist } from "memoirist";

/**
 * public: map assets any page may load (Access-Control-Allow-Origin: *); service: key-protected APIs
 * that echo the caller's origin (the key's origin policy is checked by the auth macro); none:
 * same-origin only (management API, console, docs).
 */
export type CorsKind = "public" | "service" | "none";

/**
 * json: at most JSON_BODY_LIMIT, with a declared length; upload: streamed to disk up to MAX_UPLOAD_MB.
 * A route that reads its body itself (`parse: "none"`) is an upload unless its facts say otherwise.
 */
export type BodyKind = "none" | "json" | "upload";

export interface RouteFacts {
  cors: CorsKind;
  /** defaults to "none" for GET and HEAD and "json" for other methods */
  body?: BodyKind;
  /** the `group` label of the route's request metrics */
  group: string;
  /**
   * the API key may also come in the `access_token` query parameter (URLs that must work on their own:
   * `<img src>`, tile URL templates), as with Mapbox; off by default, since URLs end up in histories
   */
  accessToken?: boolean;
}

type RouteHooks = { facts?: Partial<RouteFacts>; parse?: unknown } | undefined;

/**
 * Whether a route reads its body itself. A module's route says `parse: "none"`; once mounted, Elysia
 * holds its parsers as a list of `{ fn }` entries, which is what the route table reads.
 */
function readsOwnBody(parse: unknown): boolean {
  if (parse === "none") return true;
  return Array.isArray(parse) && parse.some((p) => p === "none" || (p as { fn?: unknown } | null)?.fn === "none");
}

export interface ResolvedFacts {
  cors: CorsKind;
  body: BodyKind;
  group: string;
  accessToken: boolean;
}

/** Facts of a path no route serves: same-origin, no body, counted under "other". */
export const UNROUTED: ResolvedFacts = Object.freeze({ cors: "none", body: "none", group: "other", accessToken: false });

/**
 * Declares the facts of every route of a module (a route's own `facts` option overrides them, e.g.
 * `{ body: "upload" }`). Call on the finished module, before it is mounted.
 */
export function withRouteFacts<T extends AnyElysia>(facts: RouteFacts, module: T): T {
  for (const route of module.routes) {
    const hooks = route.hooks as RouteHooks & { facts?: Partial<RouteFacts>; body?: unknown; detail?: Record<string, unknown> };
    hooks.facts = { ...facts, ...hooks.facts };
    // The body kind travels into the route's OpenAPI entry, where the docs add the 411/413 answers
    // the conventions give for it (routes/ops/openapi-document.ts).
    const body = resolve(route.method, hooks).body;
    if (body === "upload" || (body === "json" && hooks.body)) hooks.detail = { ...hooks.detail, [BODY_EXTENSION]: body };
  }
  return module;
}

/** OpenAPI extension naming the body kind of an operation: "json" or "upload". */
export const BODY_EXTENSION = "x-mapstead-body";
/** In a route's `detail`: its body schema is optional, which Elysia documents as required (src/routes/ops/openapi-document.ts). */
export const OPTIONAL_BODY = "x-mapstead-optional-body";

/** Lets a route override its module's facts in its options (`facts: { group: "health" }`). */
export const routeFactsOption = new Elysia({ name: "route-facts" }).macro({
  facts: (_facts: Partial<RouteFacts>) => ({}),
});

export interface RouteTable {
  /** the facts of the route that serves `method` on `pathname`, UNROUTED when none does */
  find(method: string, pathname: string): ResolvedFacts;
  /** methods some route serves on `pathname` (HEAD with GET), to tell a 405 from a 404 */
  allowedMethods(pathname: string): string[];
  /** the facts of any route on `pathname`, whatever its method (CORS preflights) */
  anyMethod(pathname: string): ResolvedFacts;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];


function resolve(method: string, hooks: RouteHooks): ResolvedFacts {
  const facts = hooks?.facts;
  return Object.freeze({
    cors: facts?.cors ?? "none",
    body: facts?.body ?? (method === "GET" || method === "HEAD" ? "none" : readsOwnBody(hooks?.parse) ? "upload" : "json"),
    group: facts?.group ?? "other",
    accessToken: facts?.accessToken ?? false,
  });
}

/** The facts of one of Elysia's routes (an `app.routes` entry). */
export function factsOf(route: { method: string; hooks?: unknown }): ResolvedFacts {
  return resolve(route.method, route.hooks as RouteHooks);
}

/** Built lazily from the app's routes (the first request comes after every module is mounted). */
export function routeTableFrom(getRoutes: () => { method: string; path: string; hooks?: unknown }[]): RouteTable {
  let router: Memoirist<ResolvedFacts> | null = null;
  const build = () => {
    const r = new Memoirist<ResolvedFacts>();
    for (const route of getRoutes()) {
      if (!METHODS.includes(route.method)) continue;
      r.add(route.method, route.path, factsOf(route), { ignoreError: true });
    }
    return r;
  };
  const find = (method: string, pathname: string): ResolvedFacts | null => {
    router ??= build();
    const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    return router.find(method === "HEAD" ? "GET" : method, path)?.store ?? null;
  };
  return {
    find: (method, pathname) => find(method, pathname) ?? UNROUTED,
    allowedMethods(pathname) {
      const allowed = METHODS.filter((m) => find(m, pathname));
      if (allowed.includes("GET")) allowed.push("HEAD");
      return allowed.sort();
    },
    anyMethod(pathname) {
      for (const m of METHODS) {
        const facts = find(m, pathname);
        if (facts) return facts;
      }
      return UNROUTED;
    },
  };
}
