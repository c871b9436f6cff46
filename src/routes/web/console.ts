// GET /console: the browser management console, and its assets under /console/assets/. The page is
// plain HTML + CSS + native ES modules (no build step; listed in src/web/console/assets.ts), embedded
// in the binary together with MapLibre GL JS for map previews, so the console works on an air-gapped
// machine. Served with a strict Content-Security-Policy: nothing inline, nothing from another origin.
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { readCookie, SESSION_COOKIE } from "../../domain/accounts/auth";
import { NotFound } from "../../errors";
import { ErrorEnvelope } from "../../http/error-response";
import { ifNoneMatchHits, strongEtag } from "../../read/etag";
import { assetContentType, CONSOLE_FILE_ASSETS, CONSOLE_TEXT_ASSETS } from "../../web/console/assets";
import { consolePages } from "../../web/console/page";
import { withRouteFacts } from "../../http/route-facts";

/** MapLibre starts its worker from a same-origin module URL (worker-src 'self'); blob: covers its fallback. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; style-src 'self'; script-src 'self'; worker-src blob: 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

interface Asset {
  body: string | Blob;
  type: string;
  etag: string;
}

export function consoleModule(ctx: AppContext) {
  // Console files change with the binary: revalidated by ETag. MapLibre files are tagged with the
  // appliance version and the file size (they change only with an upgrade). Only the listed paths
  // exist, so no request path ever reaches the file system.
  const assets = new Map<string, Asset>();
  for (const [path, body] of Object.entries(CONSOLE_TEXT_ASSETS)) assets.set(path, { body, type: assetContentType(path), etag: strongEtag(body) });
  for (const [path, file] of Object.entries(CONSOLE_FILE_ASSETS)) {
    const body = Bun.file(file);
    assets.set(path, { body, type: assetContentType(path), etag: `"${ctx.version}-${body.size}"` });
  }
  const pages = consolePages(ctx.version, ctx.config.basePath);
  const pageHeaders = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": CONSOLE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
  const servePage = ({ request }: { request: Request }) =>
    new Response(readCookie(request, SESSION_COOKIE) ? pages.withSessionCookie : pages.withoutSessionCookie, { headers: pageHeaders });

  return withRouteFacts({ cors: "none", group: "other" }, new Elysia({ name: "console" })
    .get("/console", servePage, {
      detail: { tags: ["Health"], summary: "Management console (HTML): organizations, tilesets, styles, API keys, members, fonts, setup checks" },
    })
    .get("/console/", servePage, { detail: { hide: true } })
    .get(
      "/console/assets/*",
      ({ params, request }) => {
        // Only the listed paths exist: "..", encoded slashes and anything else unknown answer 404.
        const path = params["*"];
        const asset = assets.get(path);
        if (!asset) throw new NotFound(`No console asset '${path.slice(0, 100)}'`);
        const headers: Record<string, string> = {
          "content-type": asset.type,
          "cache-control": "no-cache",
          etag: asset.etag,
          "content-security-policy": CONSOLE_CSP,
          "x-content-type-options": "nosniff",
        };
        if (ifNoneMatchHits(request, asset.etag)) return new Response(null, { status: 304, headers });
        return new Response(asset.body, { headers });
      },
      {
        response: { 200: t.Any(), 304: t.Any(), 404: ErrorEnvelope },
        detail: { hide: true },
      },
    ));
}
