// The URL grammar of static images (CONTRACT.md, Mapbox Static Images API compatible):
//   /static/v1/{owner}/{style}[@{version}][/{overlay}]/{lon},{lat},{zoom}[,{bearing}[,{pitch}]]/{w}x{h}[@2x].{png|jpg|webp}
//   /static/v1/{owner}/{style}[@{version}][/{overlay}]/[{minLon},{minLat},{maxLon},{maxLat}]/{w}x{h}[@2x].{png|jpg|webp}
//   /static/v1/{owner}/{style}[@{version}][/{overlay}]/auto/{w}x{h}[@2x].{png|jpg|webp}
// with the query parameters overlay, padding, before_layer, attribution and logo. Every problem is a 400
// naming the parameter; the style itself is looked up later (a malformed style name reads as not found).
// Mapbox's parameters that change what is drawn but that Mapstead does not implement (addlayer, setfilter,
// layer_id) are refused by name rather than ignored, since the image would silently differ; any other
// query parameter is ignored, as on every other route. A parameter given twice is refused, as on every
// service route.
import { BadRequest } from "../../errors";
import { refuseRepeatedParameters } from "../../domain/query/repeated-parameters";
import { parseOverlays, type OverlayFeature } from "./overlays";
import { MAX_ZOOM, type Padding } from "./viewport";

export type ImageFormat = "png" | "jpg" | "webp";
export const MAX_SIZE = 1280;

export interface StaticRequest {
  owner: string;
  /** the {style}[@{version}] segment as given */
  style: string;
  position:
    | { kind: "auto" }
    | { kind: "bbox"; minLon: number; minLat: number; maxLon: number; maxLat: number }
    | { kind: "center"; lon: number; lat: number; zoom: number; bearing: number };
  width: number;
  height: number;
  pixelRatio: 1 | 2;
  format: ImageFormat;
  overlays: OverlayFeature[];
  padding: Padding | null;
  /** id of the style layer the overlays are drawn beneath (null: on top of the map) */
  beforeLayer: string | null;
  attribution: boolean;
  logo: boolean;
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const SIZE = /^(\d{1,5})x(\d{1,5})(@2x)?\.([a-z]+)$/;
/** File extensions of images (static images and raster tiles alike) and the format each asks for. */
export const FORMATS: Record<string, ImageFormat> = { png: "png", jpg: "jpg", jpeg: "jpg", webp: "webp" };
/** Mapbox's query parameters that are not implemented: refused, since ignoring them changes the image. */
const UNSUPPORTED_QUERY: Record<string, string> = {
  addlayer: "addlayer is not supported: add the layer to the style and publish it",
  setfilter: "setfilter is not supported: filter the layer in the style and publish it",
  layer_id: "layer_id is not supported (it goes with setfilter): filter the layer in the style and publish it",
};

function decode(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`${name}: invalid URL encoding`);
  }
}

const POSITION_FORMS = "{lon},{lat},{zoom}[,{bearing}[,{pitch}]], [{minLon},{minLat},{maxLon},{maxLat}] or auto";

function parsePosition(raw: string): StaticRequest["position"] {
  if (raw === "auto") return { kind: "auto" };
  if (raw.startsWith("[")) return parseBbox(raw);
  const parts = raw.split(",");
  if (parts.length < 3 || parts.length > 5 || !parts.every((p) => NUMBER.test(p))) throw new BadRequest(`position '${raw.slice(0, 60)}' must be ${POSITION_FORMS}`);
  const [lon, lat, zoom, bearing = 0, pitch = 0] = parts.map(Number) as [number, number, number, number?, number?];
  if (lon < -180 || lon > 180) throw new BadRequest(`lon ${lon} must be from -180 to 180`);
  if (lat < -85.0511 || lat > 85.0511) throw new BadRequest(`lat ${lat} must be from -85.0511 to 85.0511`);
  if (zoom < 0 || zoom > MAX_ZOOM) throw new BadRequest(`zoom ${zoom} must be from 0 to ${MAX_ZOOM}`);
  if (bearing! < 0 || bearing! > 360) throw new BadRequest(`bearing ${bearing} must be from 0 to 360`);
  if (pitch !== 0) throw new BadRequest(`pitch ${pitch} is not supported: maps are drawn straight from above, so pitch must be 0`);
  return { kind: "center", lon, lat, zoom, bearing: bearing! % 360 };
}

/** `[minLon,minLat,maxLon,maxLat]`, Mapbox's bounding-box position. */
function parseBbox(raw: string): StaticRequest["position"] {
  const parts = raw.endsWith("]") ? raw.slice(1, -1).split(",") : [];
  if (parts.length !== 4 || !parts.every((p) => NUMBER.test(p))) throw new BadRequest(`bbox '${raw.slice(0, 60)}' must be [{minLon},{minLat},{maxLon},{maxLat}]`);
  const [minLon, minLat, maxLon, maxLat] = parts.map(Number) as [number, number, number, number];
  for (const lon of [minLon, maxLon]) if (lon < -180 || lon > 180) throw new BadRequest(`bbox longitude ${lon} must be from -180 to 180`);
  for (const lat of [minLat, maxLat]) if (lat < -85.0511 || lat > 85.0511) throw new BadRequest(`bbox latitude ${lat} must be from -85.0511 to 85.0511`);
  if (minLon >= maxLon || minLat >= maxLat) throw new BadRequest(`bbox ${raw.slice(0, 60)} must have minLon < maxLon and minLat < maxLat`);
  return { kind: "bbox", minLon, minLat, maxLon, maxLat };
}

function parseSize(raw: string): Pick<StaticRequest, "width" | "height" | "pixelRatio" | "format"> {
  const m = SIZE.exec(raw);
  if (!m) throw new BadRequest(`size '${raw.slice(0, 40)}' must be {width}x{height}[@2x].{png|jpg|webp}, e.g. 600x400@2x.png`);
  const width = Number(m[1]);
  const height = Number(m[2]);
  if (width < 1 || width > MAX_SIZE) throw new BadRequest(`width ${width} must be from 1 to ${MAX_SIZE}`);
  if (height < 1 || height > MAX_SIZE) throw new BadRequest(`height ${height} must be from 1 to ${MAX_SIZE}`);
  const format = FORMATS[m[4]!];
  if (!format) throw new BadRequest(`format '.${m[4]}' is not supported: use .png, .jpg or .webp`);
  return { width, height, pixelRatio: m[3] ? 2 : 1, format };
}

function parseBoolean(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const v = query.get(name);
  if (v === null) return fallback;
  if (v === "true") return true;
  if (v === "false") return false;
  throw new BadRequest(`${name} must be true or false`);
}

/** `padding`: 1 to 4 comma-separated pixel counts, CSS order (top, right, bottom, left). */
function parsePadding(raw: string, width: number, height: number): Padding {
  const parts = raw.split(",");
  if (parts.length > 4 || !parts.every((p) => /^\d{1,4}$/.test(p.trim()))) throw new BadRequest("padding must be 1 to 4 comma-separated whole pixel counts (top,right,bottom,left)");
  const [top, right = top, bottom = top, left = right] = parts.map(Number) as [number, number?, number?, number?];
  const padding = { top: top!, right: right!, bottom: bottom!, left: left! };
  if (padding.left + padding.right >= width || padding.top + padding.bottom >= height) throw new BadRequest(`padding ${raw} leaves no room inside a ${width}x${height} image`);
  return padding;
}

/**
 * Parses the path after /static/v1/ (raw, still URL-encoded, so an encoded '/' inside an overlay
 * stays inside it) and the query string.
 */
/** The answer to a path of any other shape than the two the grammar allows. */
export const badPathShape = () =>
  new BadRequest(
    "The path must be /static/v1/{owner}/{style}[/{overlay}]/{lon},{lat},{zoom}[,{bearing}[,{pitch}]]|[{minLon},{minLat},{maxLon},{maxLat}]|auto/{width}x{height}[@2x].{png|jpg|webp} (encode '/' and '?' inside an overlay as %2F and %3F)",
  );

export function parseStaticRequest(rawPath: string, query: URLSearchParams): StaticRequest {
  const segments = rawPath.split("/");
  if (segments.length < 4 || segments.length > 5) throw badPathShape();
  const owner = decode(segments[0]!, "owner");
  const style = decode(segments[1]!, "style");
  const overlayPath = segments.length === 5 ? decode(segments[2]!, "overlay") : "";
  const position = parsePosition(decode(segments[segments.length - 2]!, "position"));
  const size = parseSize(decode(segments[segments.length - 1]!, "size"));
  for (const name of query.keys()) if (UNSUPPORTED_QUERY[name]) throw new BadRequest(UNSUPPORTED_QUERY[name]!, { parameter: name });
  // Any name given twice, as on every service route (one overlay parameter; several overlays are comma-separated in it).
  refuseRepeatedParameters(query.keys());
  const overlays = parseOverlays([overlayPath, query.get("overlay") ?? ""]);
  const paddingRaw = query.get("padding");
  if (paddingRaw !== null && position.kind === "center") throw new BadRequest("padding only applies to auto and bbox positions");
  if (position.kind === "auto" && overlays.length === 0) throw new BadRequest("position auto needs at least one overlay to fit");
  const padding = paddingRaw !== null ? parsePadding(paddingRaw, size.width, size.height) : null;
  const beforeLayer = query.get("before_layer");
  if (beforeLayer === "") throw new BadRequest("before_layer must name a layer of the style");
  return {
    owner,
    style,
    position,
    ...size,
    overlays,
    padding,
    beforeLayer,
    attribution: parseBoolean(query, "attribution", true),
    logo: parseBoolean(query, "logo", true),
  };
}
