// Static images (CONTRACT.md): GET /static/v1/{owner}/{style}[@{version}][/{overlay}]/{position}/{size}.
// A key with static_maps or a console session; billable with rate-limit and quota headers through the
// `scope` macro, like geocoding. Private styles also need what GET /styles/v1 needs (maps:read or a
// member session), else the same 404 as a missing style.
import { Elysia, type DocumentDecoration } from "elysia";
import { withRouteFacts } from "../../http/route-facts";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import type { Answer } from "../../read/render/render-service";
import { parseStaticRequest } from "../../read/render/static-request";

const PREFIX = "/static/v1/";
const binary = { schema: { type: "string" as const, format: "binary" } };
const envelope = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });

/** Headers and status on Elysia's `set`, bytes as the body (Elysia's fast path). */
export function send(set: { headers: unknown; status?: unknown }, answer: Answer) {
  Object.assign(set.headers as Record<string, string>, answer.headers);
  set.status = answer.status;
  return answer.body;
}

/** The path after /static/v1/, still URL-encoded, so an encoded '/' inside an overlay stays in it. */
function rawPathOf(url: string): string {
  const start = url.indexOf(PREFIX);
  const q = url.indexOf("?", start);
  return url.slice(start + PREFIX.length, q < 0 ? undefined : q);
}

export function staticModule(services: Services, authPlugin: AuthPlugin) {
  const render = services.render;
  const staticImage = async ({ request, set, auth }: { request: Request; set: Parameters<typeof send>[0]; auth: Services["auth"] }) => {
        const url = new URL(request.url);
        const req = parseStaticRequest(rawPathOf(request.url), url.searchParams);
        return send(set, await render.staticImage(req, auth.viewerFromRequest(request), request));
      };
  const options = {
        scope: "static_maps" as const,
        detail: <DocumentDecoration>{
          tags: ["Static images"],
          summary: "A map image of a published style: /static/v1/{owner}/{style}[@{version}][/{overlay}]/{lon},{lat},{zoom}[,{bearing}]|auto/{width}x{height}[@2x].{png|jpg|webp}",
          description:
            "Mapbox Static Images API compatible. width and height 1-1280 (the image is twice that at @2x), zoom 0-22, bearing 0-360. " +
            "Overlays in the path segment before the position and/or the `overlay` query parameter, comma-separated, URL-encoded, at most 8 KiB and 100 markers: " +
            "`geojson({GeoJSON})` (simplestyle-spec properties), `pin-s|pin-l[-{label}][+{color}]({lon},{lat})` (a label of 1-2 letters or digits, or an icon name of the style's sprite), " +
            "`path[-{strokeWidth}][+{strokeColor}][-{strokeOpacity}][+{fillColor}][-{fillOpacity}]({polyline5})`. `auto` fits the view to the overlays, with `padding` " +
            "(1-4 pixel counts, top,right,bottom,left; default 5% of the shorter side). `attribution=false` hides the sources' attribution drawn bottom-right; `logo=false` the Mapstead mark bottom-left. " +
            "Needs a key with static_maps (or a console session); billable: X-RateLimit-* and X-Quota-* headers as for geocoding. A private style also needs maps:read or a member session, else 404. " +
            "Cache-Control: private, max-age=86400 for a versioned style, private, max-age=60 for the stable one; strong ETag, If-None-Match gives 304. " +
            "503 RENDER_BUSY (with Retry-After) when every renderer is busy and the queue is full; 503 RENDER_TIMEOUT when one render runs past RENDER_TIMEOUT_MS.",
          parameters: [
            { in: "query", name: "overlay", required: false, schema: { type: "string" }, description: "Overlays, as in the path segment" },
            { in: "query", name: "padding", required: false, schema: { type: "string" }, description: "auto only: 1-4 comma-separated pixel counts" },
            { in: "query", name: "attribution", required: false, schema: { type: "string", enum: ["true", "false"] }, description: "Draw the sources' attribution (default true)" },
            { in: "query", name: "logo", required: false, schema: { type: "string", enum: ["true", "false"] }, description: "Draw the Mapstead mark (default true)" },
          ],
          responses: {
            200: { description: "The image", content: { "image/png": binary, "image/jpeg": binary, "image/webp": binary } },
            304: { description: "Not modified (If-None-Match matched the ETag)" },
            400: envelope("BAD_REQUEST naming the parameter: position, lon, lat, zoom, bearing, size, width, height, format, overlay, padding, attribution, logo"),
            401: envelope("UNAUTHORIZED or KEY_EXPIRED"),
            403: envelope("INSUFFICIENT_SCOPE (no static_maps) or DOMAIN_NOT_ALLOWED"),
            404: envelope("STYLE_NOT_FOUND: unknown owner, style or version, unpublished, or private without maps:read"),
            429: envelope("RATE_LIMITED or QUOTA_EXCEEDED, with Retry-After"),
            503: envelope("RENDER_BUSY or RENDER_TIMEOUT, with Retry-After"),
          },
        },
      };
  return withRouteFacts({ cors: "service", group: "static" }, new Elysia({ name: "static-images" })
    .use(authPlugin)
    // The grammar is parsed from the raw path (overlays may hold encoded '/'). The documented shape, and a
    // hidden catch-all for the form with an overlay segment (described in the summary) and for paths of any
    // other shape, which get a 400 that names what is wrong.
    .get("/static/v1/:owner/:style/:position/:size", staticImage, options)
    .get("/static/v1/*", staticImage, { scope: "static_maps", detail: { hide: true } }),
  );
}
