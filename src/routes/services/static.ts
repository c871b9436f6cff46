// Static images (CONTRACT.md): GET /static/v1/{owner}/{style}[@{version}][/{overlay}]/{position}/{size}.
// A key with static_maps (in X-API-Key or `access_token`, so the URL works as an <img src>) or a console
// session; billable with rate-limit and quota headers through the `scope` macro, like geocoding. Private
// styles also need what GET /styles/v1 needs (maps:read or a member session), else the same 404 as a
// missing style.
import { Elysia, type DocumentDecoration } from "elysia";
import { withRouteFacts } from "../../http/route-facts";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import type { Answer } from "../../read/render/render-service";
import { badPathShape, parseStaticRequest } from "../../read/render/static-request";
import { rawQueryOf, REPEATED_PARAMETER_RULE } from "../../http/query-params";

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

const OVERLAYS =
  "Comma-separated, URL-encoded (a polyline's '?' as %3F, '\\' as %5C, '/' as %2F), at most 8 KiB and 100 markers in all (path segment and query together): " +
  "`pin-s|pin-l[-{label}][+{color}]({lon},{lat})` (a label of 1-2 letters or digits, or the name of an icon of the style's sprite: Maki icons are not built in, and an icon the sprite lacks is a 400), " +
  "`path[-{strokeWidth}][+{strokeColor}][-{strokeOpacity}][+{fillColor}][-{fillOpacity}]({polyline})` (an encoded polyline of precision 5; a fill colour makes it a polygon), " +
  "`geojson({GeoJSON})` (a geometry, Feature or FeatureCollection with simplestyle-spec properties; a GeometryCollection is drawn and fitted as its parts, collections inside it unwrapped up to 8 levels deep, deeper is a 400). Colours are 3 or 6 hex digits without '#'.";

/** Path parameters, described here (Elysia's params schema would not carry descriptions into the document). */
const PATH_PARAMETERS = {
  owner: { description: "Organization slug", examples: ["acme"] },
  style: { description: "{style} (the published version) or {style}@{version}", examples: ["streets", "streets@3"] },
  overlay: { description: `Overlays drawn over the map. ${OVERLAYS}`, examples: ["pin-l-a+f00(8.54,47.37)", "path-5+f44-0.5+f44-0.2(_p~iF~ps%7CU_ulLnnqC_mqNvxq%60%40)"] },
  position: {
    description:
      "{lon},{lat},{zoom}[,{bearing}[,{pitch}]] (-180..180, -85.0511..85.0511, 0..22 fractional, 0..360; pitch only 0, since maps are drawn from straight above: another pitch is a 400), " +
      "[{minLon},{minLat},{maxLon},{maxLat}] (a bounding box the view is fitted to, with `padding`; the brackets plain or as %5B %5D), or `auto` to fit the overlays",
    examples: ["8.54,47.37,12", "8.54,47.37,12.5,45", "8.54,47.37,12,0,0", "[5.9,45.8,10.5,47.8]", "auto"],
  },
  size: { description: "{width}x{height}[@2x].{png|jpg|webp}: width and height 1-1280, @2x doubles the pixels", examples: ["600x400.png", "600x400@2x.jpg"] },
};

const QUERY_PARAMETERS = [
  { in: "query" as const, name: "overlay", required: false, schema: { type: "string" as const }, description: `Overlays, as in the path segment. ${OVERLAYS}` },
  { in: "query" as const, name: "padding", required: false, schema: { type: "string" as const }, description: "auto and bbox only: 1-4 comma-separated pixel counts (top,right,bottom,left; default 5% of the shorter side for auto, 0 for a bbox)" },
  { in: "query" as const, name: "before_layer", required: false, schema: { type: "string" as const }, description: "Id of a style layer: the overlays are drawn beneath it instead of on top of the map (a 400 when the style has no such layer)" },
  { in: "query" as const, name: "attribution", required: false, schema: { type: "string" as const, enum: ["true", "false"] }, description: "Draw the sources' attribution (default true)" },
  { in: "query" as const, name: "logo", required: false, schema: { type: "string" as const, enum: ["true", "false"] }, description: "Draw the Mapstead mark (default true)" },
  { in: "query" as const, name: "access_token", required: false, schema: { type: "string" as const }, description: "An API key with static_maps, when the X-API-Key header cannot be sent (an <img src>)" },
];

type Operation = DocumentDecoration & Required<Pick<DocumentDecoration, "responses">>;

function operation(summary: string, path: (keyof typeof PATH_PARAMETERS)[]): Operation {
  return {
    tags: ["Static images"],
    summary,
    description:
      "Mapbox Static Images API compatible. The image is twice width x height at @2x. " +
      "Overlays come in the {overlay} path segment and/or the `overlay` query parameter. `auto` fits the view to the overlays, with `padding` " +
      "(1-4 pixel counts, top,right,bottom,left; default 5% of the shorter side); a bbox position fits the view to the box (padding default 0). `before_layer` draws the overlays beneath a style layer. " +
      "`attribution=false` hides the sources' attribution drawn bottom-right; `logo=false` the Mapstead mark bottom-left. " +
      "Mapbox's addlayer, setfilter and layer_id are not supported and answer 400 naming them; other query parameters are ignored. " +
      `${REPEATED_PARAMETER_RULE} Several overlays go comma-separated in one \`overlay\` (a repeated access_token is a 401, as on every route). ` +
      "Needs a key with static_maps, in X-API-Key or in the `access_token` query parameter (so the URL works as an <img src>), or a console session; " +
      "billable: X-RateLimit-* and X-Quota-* headers as for geocoding. A private style also needs maps:read or a member session, else 404. " +
      "Cache-Control: private, max-age=86400 for a versioned style, private, max-age=60 for the stable one; strong ETag (different when a private tileset is drawn for one caller and not another), If-None-Match gives 304. " +
      "503 RENDER_BUSY (with Retry-After) when every renderer is busy and the queue is full; 503 RENDER_TIMEOUT when one render runs past RENDER_TIMEOUT_MS.",
    security: [{ apiKey: [] }, { accessToken: [] }, { session: [] }],
    parameters: [
      ...path.map((name) => ({ in: "path" as const, name, required: true, schema: { type: "string" as const, examples: PATH_PARAMETERS[name].examples }, description: PATH_PARAMETERS[name].description })),
      ...QUERY_PARAMETERS,
    ],
    responses: {
      200: { description: "The image", content: { "image/png": binary, "image/jpeg": binary, "image/webp": binary } },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      400: envelope("BAD_REQUEST naming the parameter: position, lon, lat, zoom, bearing, pitch, bbox, size, width, height, format, overlay, padding, before_layer, attribution, logo, addlayer, setfilter, layer_id, or any query parameter given more than once"),
      401: envelope("UNAUTHORIZED or KEY_EXPIRED"),
      403: envelope("INSUFFICIENT_SCOPE (no static_maps) or DOMAIN_NOT_ALLOWED"),
      404: envelope("STYLE_NOT_FOUND: unknown owner, style or version, unpublished, or private without maps:read"),
      429: envelope("RATE_LIMITED or QUOTA_EXCEEDED, with Retry-After"),
      503: envelope("RENDER_BUSY or RENDER_TIMEOUT, with Retry-After"),
    },
  };
}

const WITHOUT_OVERLAY = "/static/v1/{owner}/{style}/{position}/{size}";

/**
 * The OpenAPI entry of the form without an overlay segment. Elysia's router needs one parameter name per
 * position of a shared prefix, so that route is registered under the overlay route's names (and hidden);
 * its document entry, with its real names, is added here (routes/ops/docs.ts).
 */
export function staticImageWithoutOverlayDocument(): Record<string, { get: Operation }> {
  const summary =
    "A map image of a published style: /static/v1/{owner}/{style}[@{version}]/{lon},{lat},{zoom}[,{bearing}[,{pitch}]]|[{minLon},{minLat},{maxLon},{maxLat}]|auto/{width}x{height}[@2x].{png|jpg|webp}";
  return { [WITHOUT_OVERLAY]: { get: { ...operation(summary, ["owner", "style", "position", "size"]), operationId: "getStaticImage" } } };
}

export function staticModule(services: Services, authPlugin: AuthPlugin) {
  const render = services.render;
  // The grammar is parsed from the raw path: Elysia's params are decoded, and an overlay may hold an
  // encoded '/'.
  const staticImage = async ({ request, set, viewer }: { request: Request; set: Parameters<typeof send>[0]; viewer: Parameters<typeof render.staticImage>[1] }) => {
    const req = parseStaticRequest(rawPathOf(request.url), new URLSearchParams(rawQueryOf(request)));
    return send(set, await render.staticImage(req, viewer, request));
  };
  return withRouteFacts({ cors: "service", group: "static", accessToken: true }, new Elysia({ name: "static-images" })
    .use(authPlugin)
    .get("/static/v1/:owner/:style/:overlay/:position/:size", staticImage, {
      scope: "static_maps",
      viewer: true,
      detail: operation(
        "A map image with overlays in the path: /static/v1/{owner}/{style}[@{version}]/{overlay}/{lon},{lat},{zoom}[,{bearing}[,{pitch}]]|[{minLon},{minLat},{maxLon},{maxLat}]|auto/{width}x{height}[@2x].{png|jpg|webp}",
        ["owner", "style", "overlay", "position", "size"],
      ),
    })
    // /static/v1/{owner}/{style}/{position}/{size}, documented by staticImageWithoutOverlayDocument.
    .get("/static/v1/:owner/:style/:overlay/:position", staticImage, { scope: "static_maps", viewer: true, detail: { hide: true } })
    // Any other shape (too few or too many segments) is a 400 that shows the grammar, after the key check.
    .get(
      "/static/v1/*",
      () => {
        throw badPathShape();
      },
      { scope: "static_maps", detail: { hide: true } },
    ),
  );
}
