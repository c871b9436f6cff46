// GET /console: the browser management console, and its assets under /console/assets/. The page is
// plain HTML + CSS + one ES module (no build step), embedded in the binary together with MapLibre GL JS
// for map previews, so the console works on an air-gapped machine. Served with a strict
// Content-Security-Policy: nothing inline, nothing from another origin.
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { NotFound } from "../../errors";
import { ErrorEnvelope } from "../../http/error-response";
import pageHtmlText from "../../web/console/index.html" with { type: "text" };
import consoleCss from "../../web/console/console.css" with { type: "text" };
import consoleJs from "../../web/console/console.js" with { type: "text" };
import maplibreJs from "../../../node_modules/maplibre-gl/dist/maplibre-gl.mjs" with { type: "file" };
import maplibreWorker from "../../../node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs" with { type: "file" };
import maplibreShared from "../../../node_modules/maplibre-gl/dist/maplibre-gl-shared.mjs" with { type: "file" };
import maplibreCss from "../../../node_modules/maplibre-gl/dist/maplibre-gl.css" with { type: "file" };
import { ifNoneMatchHits } from "../../http/conditional";

/** MapLibre starts its worker from a same-origin module URL (worker-src 'self'); blob: covers its fallback. */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; style-src 'self'; script-src 'self'; worker-src blob: 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

interface Asset {
  body: string | Blob;
  type: string;
  etag: string;
}

const etagOf = (text: string) => `"${Bun.hash(text).toString(36)}"`;

export function consoleModule(ctx: AppContext) {
  // Console files change with the binary: revalidated by ETag. MapLibre files are tagged with the
  // appliance version and the file size (they change only with an upgrade).
  const text = (body: string, type: string): Asset => ({ body, type, etag: etagOf(body) });
  const file = (path: string, type: string): Asset => {
    const f = Bun.file(path);
    return { body: f, type, etag: `"${ctx.version}-${f.size}"` };
  };
  const assets = new Map<string, Asset>([
    ["console.js", text(consoleJs, JS)],
    ["console.css", text(consoleCss, CSS)],
    ["maplibre-gl.mjs", file(maplibreJs, JS)],
    ["maplibre-gl-worker.mjs", file(maplibreWorker, JS)],
    ["maplibre-gl-shared.mjs", file(maplibreShared, JS)],
    ["maplibre-gl.css", file(maplibreCss, CSS)],
  ]);
  // Bun's types describe HTML imports as bundles; with { type: "text" } it is the file's text.
  const page = (pageHtmlText as unknown as string).replaceAll("{{VERSION}}", ctx.version.replace(/[^\w.+-]/g, ""));
  const pageHeaders = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": CONSOLE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
  const servePage = () => new Response(page, { headers: pageHeaders });

  return new Elysia({ name: "console" })
    .get("/console", servePage, {
      detail: { tags: ["Health"], summary: "Management console (HTML): organizations, tilesets, styles, API keys, members, fonts, setup checks" },
    })
    .get("/console/", servePage, { detail: { hide: true } })
    .get(
      "/console/assets/:file",
      ({ params, request }) => {
        const asset = assets.get(params.file);
        if (!asset) throw new NotFound(`No console asset '${params.file.slice(0, 100)}'`);
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
        params: t.Object({ file: t.String({ maxLength: 200 }) }),
        response: { 200: t.Any(), 304: t.Any(), 404: ErrorEnvelope },
        detail: { hide: true },
      },
    );
}
