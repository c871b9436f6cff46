// One glyph's signed distance field in the layout MapLibre GL expects from glyph PBFs (the same
// conventions as node-fontnik / sdf-glyph-foundry): 24 px em, 3 px buffer around the rounded ink box,
// one byte per pixel, 255 - clamp(distance_px * 256/8 + 64) so the outline sits at 191 and the field
// spans 2 px inside to 6 px outside.
//
// How: the outline is rasterized with exact area coverage at SUPERSAMPLE x resolution, a distance
// transform runs on that fine grid (cells partly covered seed it with their sub-cell edge offset), and
// every output pixel reads the signed distance at its own centre, which is a fine-grid cell centre
// because SUPERSAMPLE is odd.
import { CoverageRaster } from "./rasterize";
import { DistanceTransform, FAR } from "./edt";
import type { Polylines } from "./outline";

export const GLYPH_SIZE_PX = 24;
export const GLYPH_BUFFER_PX = 3;
export const SDF_RADIUS_PX = 8;
export const SDF_CUTOFF = 0.25;
const SUPERSAMPLE = 3;
const COVERAGE_EPSILON = 1 / 1024;

export interface SdfGlyph {
  width: number;
  height: number;
  left: number;
  /** y of the ink box top above the baseline, in px (the PBF stores this minus the font ascender) */
  top: number;
  /** (width + 2 * buffer) * (height + 2 * buffer) bytes, rows top to bottom; empty for blank glyphs */
  bitmap: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Reusable buffers: one renderer builds many glyphs without allocating per glyph. */
export class SdfRenderer {
  private raster = new CoverageRaster();
  private edt = new DistanceTransform();
  private outer = new Float32Array(0);
  private inner = new Float32Array(0);

  render(outline: Polylines): SdfGlyph {
    if (outline.length < 6) return { width: 0, height: 0, left: 0, top: 0, bitmap: EMPTY };
    const left = Math.round(outline.xMin);
    const bottom = Math.round(outline.yMin);
    const right = Math.round(outline.xMax);
    const top = Math.round(outline.yMax);
    const width = right - left;
    const height = top - bottom;
    if (width <= 0 || height <= 0) return { width: 0, height: 0, left: 0, top: 0, bitmap: EMPTY };

    const b = GLYPH_BUFFER_PX;
    const outW = width + 2 * b;
    const outH = height + 2 * b;
    const S = SUPERSAMPLE;
    const w = outW * S;
    const h = outH * S;
    const originX = left - b;
    const originY = top + b;

    const raster = this.raster;
    raster.reset(w, h);
    const p = outline.points;
    const starts = outline.starts;
    for (let c = 0; c < starts.length; c++) {
      const from = starts[c]!;
      const to = c + 1 < starts.length ? starts[c + 1]! : outline.length;
      if (to - from < 4) continue;
      let px = (p[to - 2]! - originX) * S;
      let py = (originY - p[to - 1]!) * S;
      for (let i = from; i < to; i += 2) {
        const x = (p[i]! - originX) * S;
        const y = (originY - p[i + 1]!) * S;
        raster.line(px, py, x, y);
        px = x;
        py = y;
      }
    }
    const coverage = raster.finish();

    const n = w * h;
    if (this.outer.length < n) {
      this.outer = new Float32Array(n);
      this.inner = new Float32Array(n);
    }
    const outer = this.outer;
    const inner = this.inner;
    // outer: distance to the ink (seeds inside); inner: distance to the background (seeds outside).
    for (let i = 0; i < n; i++) {
      const a = coverage[i]!;
      // Float rounding in the running sums leaves crumbs like 1e-7 in empty cells: snap them.
      if (a >= 1 - COVERAGE_EPSILON) {
        outer[i] = 0;
        inner[i] = FAR;
      } else if (a <= COVERAGE_EPSILON) {
        outer[i] = FAR;
        inner[i] = 0;
      } else {
        const d = 0.5 - a;
        outer[i] = d > 0 ? d * d : 0;
        inner[i] = d < 0 ? d * d : 0;
      }
    }
    const half = (S - 1) >> 1;
    this.edt.run(outer, w, h, half, S);
    this.edt.run(inner, w, h, half, S);

    const bitmap = new Uint8Array(outW * outH);
    const scale = 256 / SDF_RADIUS_PX / S;
    const shift = SDF_CUTOFF * 256;
    for (let y = 0; y < outH; y++) {
      const row = (y * S + half) * w;
      for (let x = 0; x < outW; x++) {
        const i = row + x * S + half;
        const d = (Math.sqrt(outer[i]!) - Math.sqrt(inner[i]!)) * scale + shift;
        bitmap[y * outW + x] = d >= 255 ? 0 : d <= 0 ? 255 : 255 - Math.floor(d);
      }
    }
    return { width, height, left, top, bitmap };
  }
}
