// mapstead:// references inside stored styles (CONTRACT.md) and their rewriting to absolute URLs.
//   mapstead://tilesets/{owner}/{tileset}[@{version}]   a source's `url` (TileJSON)
//   mapstead://fonts/{fontstack}/{range}.pbf            the `glyphs` template
//   mapstead://sprites/{owner}/{style}                  the `sprite` (string, or `url` of an array entry)
// Anything else that is an absolute URL passes through untouched. Absolute URLs under PUBLIC_URL that
// name this server's own tilesets, fonts, sprites and style raster tiles are found too, so they are
// checked like the references they stand for: otherwise writing the URL out would get past the
// visibility checks (another organization's private tileset, say) that the mapstead:// form meets.
import { isSlug } from "../orgs/slug";
import { parseVersionedSlug } from "../orgs/versioned-slug";
import { expression } from "@maplibre/maplibre-gl-style-spec";

export const SCHEME = "mapstead://";
export const GLYPHS_REF = "mapstead://fonts/{fontstack}/{range}.pbf";

export type Ref =
  | { kind: "tileset"; owner: string; tileset: string; version: number | null }
  | { kind: "glyphs" }
  | { kind: "sprite"; owner: string; style: string }
  /** raster tiles (or their TileJSON) of a published style; only ever written as an absolute URL */
  | { kind: "style"; owner: string; style: string; version: number | null };

export interface RefProblem {
  path: string;
  message: string;
}

/** Where a reference sits in the style, so problems and rewrites can name it. */
export interface FoundRef {
  path: string;
  ref: Ref;
}

/** Where a reference may sit: a source's url or tiles, the glyphs template, a sprite. */
type Slot = "tileset" | "glyphs" | "sprite";

export function parseRef(url: string, expected: Slot): Ref | string {
  const rest = url.slice(SCHEME.length);
  if (expected === "glyphs") return url === GLYPHS_REF ? { kind: "glyphs" } : `must be exactly "${GLYPHS_REF}" to use the installed fonts`;
  const parts = rest.split("/");
  if (expected === "tileset") {
    if (parts.length !== 3 || parts[0] !== "tilesets") return `must look like mapstead://tilesets/{owner}/{tileset}[@{version}]`;
    const name = parts[2]!;
    const at = name.indexOf("@");
    if (!isSlug(parts[1]!) || !isSlug(at < 0 ? name : name.slice(0, at)))
      return `must look like mapstead://tilesets/{owner}/{tileset}[@{version}] with slugs for owner and tileset`;
    const parsed = parseVersionedSlug(name);
    if (!parsed) return `version '${name.slice(at + 1, at + 41)}' must be a positive integer`;
    return { kind: "tileset", owner: parts[1]!, tileset: parsed.slug, version: parsed.version };
  }
  if (parts.length !== 3 || parts[0] !== "sprites" || !isSlug(parts[1]!) || !isSlug(parts[2]!)) return `must look like mapstead://sprites/{owner}/{style}`;
  return { kind: "sprite", owner: parts[1]!, style: parts[2]! };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * The path segments (decoded) of an absolute URL on this server (`publicUrl` is PUBLIC_URL without its
 * trailing slash), compared as URLs so that case in the scheme and host, a default port or a missing
 * scheme make no difference; null for any other URL.
 */
function localSegments(publicUrl: string, value: string): string[] | null {
  let url: URL;
  let base: URL;
  try {
    base = new URL(`${publicUrl}/`);
    // a scheme-relative "//host/..." takes the page's scheme, so it reaches this server just the same
    url = value.startsWith("//") ? new URL(value, base) : new URL(value);
  } catch {
    return null;
  }
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  return url.pathname
    .slice(base.pathname.length)
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

/**
 * What an absolute URL on this server stands for in `slot`: the reference it is checked as, a problem
 * when it points at this server but at nothing a style can use there, or null for URLs elsewhere.
 */
export function parseLocalUrl(publicUrl: string, value: string, slot: Slot): Ref | string | null {
  const segments = localSegments(publicUrl, value);
  if (!segments) return null;
  const [area, v1, owner = "", name = "", ...rest] = segments;
  const versioned = (text: string) => (isSlug(owner) ? parseVersionedSlug(text) : null);
  if (slot === "glyphs")
    return segments.join("/") === "fonts/v1/{fontstack}/{range}.pbf" ? { kind: "glyphs" } : `points at this server but not at its glyph template: use "${GLYPHS_REF}"`;
  if (slot === "sprite") {
    const style = area === "styles" && v1 === "v1" && rest.length === 1 && rest[0] === "sprite" ? versioned(name) : null;
    return style ? { kind: "sprite", owner, style: style.slug } : `points at this server but not at a style's sprite: use mapstead://sprites/{owner}/{style}`;
  }
  if (area === "tiles" && v1 === "v1") {
    // {tileset}[@{version}].json, or a tile template {tileset}@{version}/{z}/{x}/{y}.{ext}
    const tileset = rest.length === 0 && name.endsWith(".json") ? versioned(name.slice(0, -".json".length)) : rest.length === 3 ? versioned(name) : null;
    if (tileset && (rest.length === 0 || tileset.version !== null)) return { kind: "tileset", owner, tileset: tileset.slug, version: tileset.version };
  }
  if (area === "styles" && v1 === "v1" && (rest[0] === "tiles.json" || rest[0] === "tiles")) {
    const style = versioned(name);
    if (style) return { kind: "style", owner, style: style.slug, version: style.version };
  }
  return `points at this server but not at a tileset: use mapstead://tilesets/{owner}/{tileset}[@{version}] (or the TileJSON URL of a published tileset or style)`;
}

/**
 * Every mapstead:// reference in the style, and with `publicUrl` every absolute URL on this server where
 * a reference may sit, plus problems with malformed or misplaced ones.
 */
export function findRefs(style: Record<string, unknown>, publicUrl?: string): { refs: FoundRef[]; problems: RefProblem[] } {
  const refs: FoundRef[] = [];
  const problems: RefProblem[] = [];
  const check = (path: string, value: unknown, kind: Slot) => {
    if (typeof value !== "string") return;
    // Absolute URLs are only checked, never rewritten or pinned: they are served as written.
    const parsed = value.startsWith(SCHEME) ? parseRef(value, kind) : publicUrl === undefined ? null : parseLocalUrl(publicUrl, value, kind);
    if (parsed === null) return;
    if (typeof parsed === "string") problems.push({ path, message: `"${value.slice(0, 300)}" ${parsed}` });
    else refs.push({ path, ref: parsed });
  };
  if (isObject(style.sources)) {
    for (const [id, source] of Object.entries(style.sources)) {
      if (!isObject(source)) continue;
      check(`sources.${id}.url`, source.url, "tileset");
      if (Array.isArray(source.tiles))
        source.tiles.forEach((t, i) => {
          if (typeof t === "string" && t.startsWith(SCHEME))
            problems.push({ path: `sources.${id}.tiles[${i}]`, message: `mapstead:// references go in the source's "url" (mapstead://tilesets/{owner}/{tileset}), not in "tiles"` });
          else check(`sources.${id}.tiles[${i}]`, t, "tileset");
        });
      if (typeof source.data === "string" && source.data.startsWith(SCHEME))
        problems.push({ path: `sources.${id}.data`, message: "mapstead:// references are not supported in GeoJSON data; use a tileset source" });
    }
  }
  check("glyphs", style.glyphs, "glyphs");
  if (typeof style.sprite === "string") check("sprite", style.sprite, "sprite");
  else if (Array.isArray(style.sprite)) style.sprite.forEach((s, i) => isObject(s) && check(`sprite[${i}].url`, s.url, "sprite"));
  return { refs, problems };
}

/** `owner/tileset`, the key of style_versions.tileset_pins. */
export const pinKey = (owner: string, tileset: string) => `${owner}/${tileset}`;

export interface RewriteTarget {
  base: string;
  /** tileset URL: pinned version, or null for the stable TileJSON */
  tilesetVersion(owner: string, tileset: string, explicit: number | null): number | null;
  /** sprite base URL (without .json/.png) */
  spriteUrl(owner: string, style: string): string;
}

/** A deep copy of the style with every mapstead:// reference turned into an absolute URL. */
export function rewriteRefs(style: Record<string, unknown>, target: RewriteTarget): Record<string, unknown> {
  const out = structuredClone(style);
  const tilesetUrl = (ref: Extract<Ref, { kind: "tileset" }>) => {
    const v = target.tilesetVersion(ref.owner, ref.tileset, ref.version);
    return `${target.base}/tiles/v1/${ref.owner}/${ref.tileset}${v === null ? "" : `@${v}`}.json`;
  };
  if (isObject(out.sources)) {
    for (const source of Object.values(out.sources)) {
      if (!isObject(source) || typeof source.url !== "string" || !source.url.startsWith(SCHEME)) continue;
      const ref = parseRef(source.url, "tileset");
      if (typeof ref !== "string" && ref.kind === "tileset") source.url = tilesetUrl(ref);
    }
  }
  if (out.glyphs === GLYPHS_REF) out.glyphs = `${target.base}/fonts/v1/{fontstack}/{range}.pbf`;
  const sprite = (url: unknown) => {
    if (typeof url !== "string" || !url.startsWith(SCHEME)) return url;
    const ref = parseRef(url, "sprite");
    return typeof ref !== "string" && ref.kind === "sprite" ? target.spriteUrl(ref.owner, ref.style) : url;
  };
  if (typeof out.sprite === "string") out.sprite = sprite(out.sprite);
  else if (Array.isArray(out.sprite)) for (const s of out.sprite) if (isObject(s)) s.url = sprite(s.url);
  return out;
}

/**
 * Every font stack a style's symbol layers ask for, with the path where it appears: `text-font` (a plain
 * stack, a zoom function's stops, or the `literal` stacks of an expression) and the `text-font` of
 * `format` sections in `text-field`. Symbol layers with a text-field but no text-font get MapLibre's
 * default stack, which is reported too.
 */
export const MAPLIBRE_DEFAULT_FONTS = ["Open Sans Regular", "Arial Unicode MS Regular"];

export function fontStacksUsed(style: Record<string, unknown>): { path: string; stacks: string[][]; isDefault?: true }[] {
  const found: { path: string; stacks: string[][]; isDefault?: true }[] = [];
  if (!Array.isArray(style.layers)) return found;
  style.layers.forEach((layer, i) => {
    if (!isObject(layer) || layer.type !== "symbol") return;
    const layout = isObject(layer.layout) ? layer.layout : {};
    const path = `layers[${i}].layout.text-font`;
    if (layout["text-font"] === undefined) {
      if (layout["text-field"] !== undefined) found.push({ path, stacks: [MAPLIBRE_DEFAULT_FONTS], isDefault: true });
    } else {
      const stacks: string[][] = [];
      collectFontStacks(layout["text-font"], stacks);
      if (stacks.length) found.push({ path, stacks });
    }
    const formatted: string[][] = [];
    formatStacks(layout["text-field"], formatted);
    if (formatted.length) found.push({ path: `layers[${i}].layout.text-field`, stacks: formatted });
  });
  return found;
}

function collectFontStacks(value: unknown, into: string[][]): void {
  if (isObject(value) && Array.isArray(value.stops)) {
    for (const stop of value.stops) if (Array.isArray(stop)) collectFontStacks(stop[1], into);
    return;
  }
  if (!Array.isArray(value)) return;
  // ["step", ["zoom"], ...] or ["match", ["get", "country"], ["DE", "FR"], ...]: in an expression only the
  // `literal` arrays are stacks; ["zoom"] and match labels are not fonts.
  if (expression.isExpression(value)) literalStacks(value, into);
  else if (value.length && value.every((v) => typeof v === "string")) into.push(value as string[]);
}

function literalStacks(value: unknown, into: string[][]): void {
  if (!Array.isArray(value)) return;
  if (value[0] === "literal") {
    const stack = value[1];
    if (Array.isArray(stack) && stack.length && stack.every((v) => typeof v === "string")) into.push(stack as string[]);
    return;
  }
  for (const v of value) literalStacks(v, into);
}

/** ["format", text, {"text-font": ...}, text, {...}]: the fonts of each section, wherever formats nest. */
function formatStacks(value: unknown, into: string[][]): void {
  if (!Array.isArray(value)) return;
  if (value[0] === "format") for (const arg of value.slice(1)) if (isObject(arg) && arg["text-font"] !== undefined) collectFontStacks(arg["text-font"], into);
  for (const v of value) formatStacks(v, into);
}
