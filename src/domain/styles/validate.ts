// Everything a style must satisfy before it is saved as a draft or published: the MapLibre style
// specification (validateStyleMin from @maplibre/maplibre-gl-style-spec) and every mapstead:// reference
// (and every absolute URL on this server standing for one) resolving to something that exists and the
// organization may use: a published tileset (or a ready pinned version), installed fonts, the style's own
// sprite, a published style's raster tiles.
import { validateStyleMin } from "@maplibre/maplibre-gl-style-spec";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { Unprocessable } from "../../errors";
import { findRefs, fontStacksUsed, GLYPHS_REF, type RefProblem } from "./references";

export interface ReferenceWorld {
  /** PUBLIC_URL without its trailing slash: absolute URLs under it are checked like mapstead:// references */
  publicUrl: string;
  ownerSlug: string;
  styleSlug: string;
  hasSprite: boolean;
  /** published version of a tileset visible to this owner, or null */
  publishedTilesetVersion(owner: string, tileset: string): number | null;
  tilesetVersionReady(owner: string, tileset: string, version: number): boolean;
  installedFonts(): Set<string>;
  /** whether a style is published (or has that version) and is the organization's own or public */
  styleReadable(owner: string, style: string, version: number | null): boolean;
  /** what a ready tileset version holds: raster-DEM tiles or not, the tile format, vector layer ids (null: unknown) */
  tilesetVersionIsDem?(owner: string, tileset: string, version: number): { dem: boolean; format: string; layers?: string[] } | null;
}

/** The id of the source a reference's path is in: sources.{id}.url or sources.{id}.tiles[i]. */
const sourceIdOf = (path: string) => /^sources\.(.+)\.(?:url|tiles\[\d+\])$/.exec(path)?.[1];

/**
 * A raster-dem source must point at a raster-DEM tileset and other sources must not: MapLibre would
 * otherwise fail on every tile, or read colours as heights.
 */
function sourceKindProblem(style: Record<string, unknown>, path: string, name: string, version: number, world: ReferenceWorld): string | null {
  const id = sourceIdOf(path);
  const source = id !== undefined ? (style.sources as Record<string, { type?: unknown }>)[id] : undefined;
  const [owner, tileset] = name.split("/") as [string, string];
  const kind = world.tilesetVersionIsDem?.(owner, tileset, version);
  if (!source || !kind) return null;
  if (source.type === "raster-dem" && !kind.dem)
    return `a raster-dem source needs a raster-DEM tileset; '${name}' holds ${kind.format} tiles without an elevation encoding (upload elevation with encoding=terrarium|mapbox)`;
  if (source.type !== "raster-dem" && kind.dem) return `'${name}' is a raster-DEM tileset: use it in a source of type raster-dem (for hillshade layers and terrain)`;
  // MapLibre would fail on every tile: it cannot decode vector tiles as images, nor images as vectors.
  if (source.type === "raster" && kind.format === "pbf") return `'${name}' holds vector tiles: use it in a source of type vector`;
  if (source.type === "vector" && kind.format !== "pbf") return `'${name}' holds ${kind.format} images: use it in a source of type raster`;
  return null;
}

/**
 * Layers reading a `source-layer` the tileset does not have draw nothing, and MapLibre reports an error
 * for each tile: name the layers the tileset has instead.
 */
function sourceLayerProblems(style: Record<string, unknown>, tilesetLayers: Map<string, { name: string; layers: string[] }>): RefProblem[] {
  const problems: RefProblem[] = [];
  if (!Array.isArray(style.layers)) return problems;
  style.layers.forEach((layer, i) => {
    const l = layer as { source?: unknown; "source-layer"?: unknown };
    const known = typeof l?.source === "string" ? tilesetLayers.get(l.source) : undefined;
    const wanted = l?.["source-layer"];
    if (!known || typeof wanted !== "string" || known.layers.includes(wanted)) return;
    problems.push({ path: `layers[${i}].source-layer`, message: `'${wanted.slice(0, 100)}' is not a layer of tileset '${known.name}' (its layers: ${known.layers.join(", ") || "none"})` });
  });
  return problems;
}

/**
 * Text needs `glyphs`. MapLibre GL JS (5.11 and later) draws text without them in the browser's local
 * fonts, but MapLibre Native and Mapstead's static images and raster tiles cannot: they would silently
 * drop every label, so the style is refused with the line to add.
 */
function missingGlyphs(style: Record<string, unknown>): RefProblem[] {
  if (style.glyphs !== undefined || !Array.isArray(style.layers)) return [];
  const ids = style.layers
    .filter((l) => l?.type === "symbol" && l.layout?.["text-field"] !== undefined)
    .map((l) => JSON.stringify(String(l.id).slice(0, 100)));
  if (!ids.length) return [];
  const named = ids.length === 1 ? `layer ${ids[0]} draws` : `layers ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ` and ${ids.length - 3} more` : ""} draw`;
  return [{ path: "glyphs", message: `${named} text (text-field), which needs "glyphs": add "glyphs": "${GLYPHS_REF}" to draw it in the installed fonts (without it, static images and raster tiles show no labels)` }];
}

/**
 * A vector source's tileSize must be 512 (or left out): MapLibre GL JS and Mapbox GL JS throw "vector tile
 * sources must have a tileSize of 512" and add no such source, so every layer of it fails in the browser.
 * A raster or raster-dem source's is 256 or 512, the sizes tiles come in: a smaller one makes a client (and
 * this server's renderer) fetch and draw four times the tiles per halving, thousands for one view.
 */
function tileSizeProblems(style: Record<string, unknown>): RefProblem[] {
  const sources = style.sources;
  if (!sources || typeof sources !== "object") return [];
  const problems: RefProblem[] = [];
  for (const [id, source] of Object.entries(sources as Record<string, { type?: unknown; tileSize?: unknown }>)) {
    if (source?.tileSize === undefined) continue;
    const got = JSON.stringify(source.tileSize);
    if (source.type === "vector" && source.tileSize !== 512)
      problems.push({ path: `sources.${id}.tileSize`, message: `a vector source's tileSize must be 512 (got ${got}): MapLibre GL JS and Mapbox GL JS refuse any other, and the source would draw nothing; remove tileSize` });
    if ((source.type === "raster" || source.type === "raster-dem") && source.tileSize !== 256 && source.tileSize !== 512)
      problems.push({ path: `sources.${id}.tileSize`, message: `a ${source.type} source's tileSize must be 256 or 512 (got ${got}), the sizes tiles come in` });
  }
  return problems;
}

/** "layers[0].paint.fill-color: color expected" -> {path, message}. */
function splitMessage(message: string): RefProblem {
  const cleaned = message.replace(/, previously used at line undefined/, "");
  const m = /^([A-Za-z0-9_$\-[\].]+): (.*)$/s.exec(cleaned);
  return m ? { path: m[1]!, message: m[2]! } : { path: "", message: cleaned };
}

export function styleProblems(style: unknown, world: ReferenceWorld): RefProblem[] {
  if (!style || typeof style !== "object" || Array.isArray(style)) return [{ path: "", message: "a style must be a JSON object" }];
  const problems: RefProblem[] = validateStyleMin(style as StyleSpecification).map((e) => splitMessage(e.message));
  const s = style as Record<string, unknown>;
  const { refs, problems: refProblems } = findRefs(s, world.publicUrl);
  problems.push(...refProblems);
  /** vector sources on mapstead tilesets, by source id: their layers, to check each layer's source-layer */
  const tilesetLayers = new Map<string, { name: string; layers: string[] }>();
  for (const { path, ref } of refs) {
    if (ref.kind === "tileset") {
      const name = `${ref.owner}/${ref.tileset}`;
      const version = ref.version ?? world.publishedTilesetVersion(ref.owner, ref.tileset);
      if (ref.version === null && version === null) {
        problems.push({ path, message: `tileset '${name}' does not exist or is not published; publish it first, or pin a ready version with @{version}` });
      } else if (ref.version !== null && !world.tilesetVersionReady(ref.owner, ref.tileset, ref.version)) {
        problems.push({ path, message: `tileset version '${name}@${ref.version}' does not exist or has not finished processing` });
      } else {
        const kindProblem = sourceKindProblem(s, path, name, version!, world);
        if (kindProblem) problems.push({ path, message: kindProblem });
        const facts = world.tilesetVersionIsDem?.(ref.owner, ref.tileset, version!);
        const sourceId = sourceIdOf(path);
        if (!kindProblem && sourceId !== undefined && facts?.format === "pbf" && facts.layers?.length) tilesetLayers.set(sourceId, { name: `${name}@${version}`, layers: facts.layers });
      }
    } else if (ref.kind === "sprite") {
      if (ref.owner !== world.ownerSlug || ref.style !== world.styleSlug)
        problems.push({ path, message: `a style can only use its own sprite: mapstead://sprites/${world.ownerSlug}/${world.styleSlug}` });
      else if (!world.hasSprite) problems.push({ path, message: "this style has no sprite yet; upload one first (PUT .../sprite)" });
    } else if (ref.kind === "style") {
      const name = `${ref.owner}/${ref.style}${ref.version === null ? "" : `@${ref.version}`}`;
      if (!world.styleReadable(ref.owner, ref.style, ref.version)) problems.push({ path, message: `style '${name}' does not exist or is not published` });
    }
  }
  problems.push(...sourceLayerProblems(s, tilesetLayers));
  problems.push(...missingGlyphs(s));
  problems.push(...tileSizeProblems(s));
  // Without glyphs the fonts are checked too, so the author sees every problem at once; glyphs on another
  // host are that host's business.
  if (s.glyphs === undefined || refs.some((r) => r.ref.kind === "glyphs")) {
    const installed = world.installedFonts();
    const listed = () => [...installed].sort().join(", ") || "none";
    // The glyph route serves a stack from the fonts of it that are installed, skipping the others (as
    // "Arial Unicode MS Regular" after "Noto Sans Regular" in styles made for other hosts): a stack
    // fails only when none of its fonts is installed.
    for (const { path, stacks, isDefault } of fontStacksUsed(s)) {
      for (const stack of stacks) {
        if (stack.some((f) => installed.has(f))) continue;
        const names = stack.map((f) => `'${f}'`).join(", ");
        const message = isDefault
          ? `no text-font, so MapLibre asks for its default stack ${names}, and none of it is installed: set text-font (installed: ${listed()})`
          : `font${stack.length > 1 ? "s" : ""} not installed: ${names} (installed: ${listed()})`;
        problems.push({ path, message });
      }
    }
  }
  return problems;
}

/**
 * The id of the layer a problem's path points into ("layers[8]..."): in a style of 200 layers the index
 * alone is hard to find, the id is what the author wrote.
 */
function withLayerIds(style: unknown, problems: RefProblem[]): (RefProblem & { layer?: string })[] {
  const layers = (style as { layers?: unknown })?.layers;
  return problems.map((p) => {
    const index = /^layers\[(\d+)\]/.exec(p.path)?.[1];
    const id = index !== undefined && Array.isArray(layers) ? (layers[Number(index)] as { id?: unknown } | undefined)?.id : undefined;
    return typeof id === "string" ? { ...p, layer: id } : p;
  });
}

export function assertValidStyle(style: unknown, world: ReferenceWorld): asserts style is Record<string, unknown> {
  const problems = withLayerIds(style, styleProblems(style, world));
  if (problems.length) {
    const first = problems[0]!;
    const where = first.path ? `${first.path}${first.layer !== undefined ? ` (layer ${JSON.stringify(first.layer.slice(0, 100))})` : ""}: ` : "";
    throw new Unprocessable("INVALID_STYLE", `The style is invalid: ${where}${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more in details)` : ""}`, problems);
  }
}
