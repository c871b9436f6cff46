// Upright label glyphs as alpha masks, rasterized once and kept across renders. Drawing text as SVG
// outlines made resvg fill (and, for halos, stroke) every glyph of every label anew: two thirds of a
// render's CPU time. A mask is made for one font, glyph, em size, halo radius and position within its
// pixel (quarter-pixel steps, so glyphs land where the outlines did), by the exact-area coverage
// rasterizer the glyph SDFs use; compose.ts lays the masks onto the image.
//
// A halo is the glyph grown by its radius in every direction (the fill plus a round-joined stroke of
// twice the radius, as the SVG drew it): each pixel is covered by clamp(radius + 0.5 - d) where d is the
// distance from its centre to the outline, and fully inside the glyph. A blurred halo (`text-halo-blur`)
// fades out as MapLibre's SDF shader fades it: smoothly from radius - 1.19 blur to radius + 1.19 blur
// (half a pixel wider each way, for the pixel's own edge) instead of over that one pixel.
import { flattenPath, type Polylines } from "../glyphs/outline";
import { CoverageRaster } from "../glyphs/rasterize";
import { Lru } from "../lru";
import type { LoadedFont } from "./text";

/** MapLibre's halo fade: the shader's gamma is `text-halo-blur * 1.19` px either side of the halo's edge. */
export const BLUR_SPREAD = 1.19;
/** Positions, em sizes, halo radii and blurs are rounded to this fraction of a pixel. */
export const SUBPIXEL_STEPS = 4;
/** Masks are a few hundred bytes; this bounds each render worker's share. */
const MASK_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * Glyphs larger than this (device px per em) stay SVG outlines: rare on maps, and their masks would be
 * large to keep and slow to make (a halo measures every pixel's distance to the outline).
 */
export const MAX_MASK_EM_PX = 128;

export interface GlyphMask {
  /** where the mask's top-left pixel lies relative to the pixel that holds the glyph origin */
  left: number;
  top: number;
  width: number;
  height: number;
  /** coverage 0-255, rows top to bottom; empty for blank glyphs */
  alpha: Uint8Array;
}

const EMPTY: GlyphMask = { left: 0, top: 0, width: 0, height: 0, alpha: new Uint8Array(0) };
const masks = new Lru<GlyphMask>({ maxBytes: MASK_CACHE_BYTES });
const fontIds = new WeakMap<LoadedFont, number>();
let nextFontId = 0;
const raster = new CoverageRaster();

/** Whether glyphs of this em size (device px) are drawn from masks. */
export function maskable(emPx: number): boolean {
  return emPx <= MAX_MASK_EM_PX;
}

/** Rounds a length in device px to the mask grid. */
export function quantize(v: number): number {
  return Math.round(v * SUBPIXEL_STEPS) / SUBPIXEL_STEPS;
}

/**
 * The mask of a glyph at `emPx` device px per em, its origin `fx`, `fy` (multiples of 1/SUBPIXEL_STEPS
 * in [0, 1)) right of and below a pixel corner, grown by `haloPx` (0: the glyph itself) with its edge
 * faded over `blurPx` (`text-halo-blur`; only for a halo).
 */
export function glyphMask(font: LoadedFont, glyphIndex: number, emPx: number, fx: number, fy: number, haloPx: number, blurPx = 0): GlyphMask {
  let fontId = fontIds.get(font);
  if (fontId === undefined) fontIds.set(font, (fontId = nextFontId++));
  const blur = haloPx > 0 ? blurPx : 0;
  const key = `${fontId}|${glyphIndex}|${emPx}|${fx}|${fy}|${haloPx}|${blur}`;
  let mask = masks.get(key);
  if (!mask) {
    mask = makeMask(font, glyphIndex, emPx, fx, fy, haloPx, blur);
    masks.set(key, mask, mask.alpha.length + key.length + 64);
  }
  return mask;
}

function makeMask(font: LoadedFont, glyphIndex: number, emPx: number, fx: number, fy: number, haloPx: number, blurPx: number): GlyphMask {
  const outline = flattenPath(font.parsed.font.glyphs.get(glyphIndex).path.commands, emPx / font.upm);
  if (outline.length < 6 || !(outline.xMax > outline.xMin) || !(outline.yMax > outline.yMin)) return EMPTY;
  // one spare pixel around the ink (the rasterizer needs a free cell on the left and right)
  const grow = haloPx > 0 ? Math.ceil(haloPx + BLUR_SPREAD * blurPx) + 1 : 1;
  const left = Math.floor(outline.xMin + fx) - grow;
  const top = Math.floor(fy - outline.yMax) - grow;
  const width = Math.ceil(outline.xMax + fx) + grow - left + 1;
  const height = Math.ceil(fy - outline.yMin) + grow - top + 1;
  // outline (y up, origin at the pen) -> mask pixels (y down)
  const ox = fx - left;
  const oy = fy - top;
  const coverage = fill(outline, ox, oy, width, height);
  const alpha = new Uint8Array(width * height);
  if (haloPx > 0) grown(outline, ox, oy, coverage, width, height, haloPx, blurPx, alpha);
  else for (let i = 0; i < alpha.length; i++) alpha[i] = Math.round(coverage[i]! * 255);
  return { left, top, width, height, alpha };
}

function fill(outline: Polylines, ox: number, oy: number, width: number, height: number): Float32Array {
  raster.reset(width, height);
  forEachEdge(outline, ox, oy, (x0, y0, x1, y1) => raster.line(x0, y0, x1, y1));
  return raster.finish().slice(0, width * height);
}

/**
 * The glyph grown by `radius`: full inside, then a one-pixel ramp around distance `radius` from the
 * outline, or with `blur` a smoothstep from radius - spread to radius + spread.
 */
function grown(outline: Polylines, ox: number, oy: number, coverage: Float32Array, width: number, height: number, radius: number, blur: number, out: Uint8Array): void {
  const spread = blur > 0 ? BLUR_SPREAD * blur + 0.5 : 0.5;
  const reach = radius + spread;
  const edge = (d: number) => (blur > 0 ? 1 - smoothstep(radius - spread, reach, d) : Math.min(1, reach - d));
  // each row measures only the edges that come within reach of its pixel centres
  const rows: number[][] = Array.from({ length: height }, () => []);
  const edges: number[] = [];
  forEachEdge(outline, ox, oy, (x0, y0, x1, y1) => {
    const e = edges.length;
    edges.push(x0, y0, x1, y1);
    const first = Math.max(0, Math.floor(Math.min(y0, y1) - reach - 0.5));
    const last = Math.min(height - 1, Math.ceil(Math.max(y0, y1) + reach - 0.5));
    for (let y = first; y <= last; y++) rows[y]!.push(e);
  });
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    const near = rows[y]!;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = coverage[i]!;
      if (inside >= 0.5) {
        out[i] = 255;
        continue;
      }
      const cx = x + 0.5;
      let best = reach * reach;
      for (let k = 0; k < near.length; k++) {
        const e = near[k]!;
        const d = segmentDistanceSquared(cx, cy, edges[e]!, edges[e + 1]!, edges[e + 2]!, edges[e + 3]!);
        if (d < best) best = d;
      }
      out[i] = Math.round(Math.max(inside, edge(Math.sqrt(best))) * 255);
    }
  }
}

function smoothstep(from: number, to: number, x: number): number {
  const t = Math.max(0, Math.min(1, (x - from) / (to - from)));
  return t * t * (3 - 2 * t);
}

function forEachEdge(outline: Polylines, ox: number, oy: number, edge: (x0: number, y0: number, x1: number, y1: number) => void): void {
  const p = outline.points;
  const starts = outline.starts;
  for (let c = 0; c < starts.length; c++) {
    const from = starts[c]!;
    const to = c + 1 < starts.length ? starts[c + 1]! : outline.length;
    if (to - from < 4) continue;
    let px = p[to - 2]! + ox;
    let py = oy - p[to - 1]!;
    for (let i = from; i < to; i += 2) {
      const x = p[i]! + ox;
      const y = oy - p[i + 1]!;
      edge(px, py, x, y);
      px = x;
      py = y;
    }
  }
}

function segmentDistanceSquared(px: number, py: number, x0: number, y0: number, x1: number, y1: number): number {
  const dx = x1 - x0;
  const dy = y1 - y0;
  const len = dx * dx + dy * dy;
  let t = len > 0 ? ((px - x0) * dx + (py - y0) * dy) / len : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = x0 + t * dx - px;
  const ey = y0 + t * dy - py;
  return ex * ex + ey * ey;
}
