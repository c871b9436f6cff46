// One glyph's signed distance field in the layout MapLibre GL expects from glyph PBFs (the same
// conventions as node-fontnik / sdf-glyph-foundry): 24 px em, 3 px buffer around the rounded ink box,
// one byte per pixel, 255 - clamp(distance_px * 256/8 + 64) so the outline sits at 191 and the field
// spans 2 px inside to 6 px outside.
//
// How: the outline is rasterized with exact area coverage at SUPERSAMPLE x resolution; one distance
// transform on that fine grid, seeded where the outline runs (partly covered cells, with their sub-cell
// edge offset), gives every cell its distance to the outline, and coverage gives the sign. Every output
// pixel reads the fine cell at its own centre (SUPERSAMPLE is odd, so there is one). Compared with an
// exact point-to-outline distance the bytes are off by under 0.1 px on average (test/glyphs).
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
  private grid = new Float32Array(0);

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
    if (this.grid.length < n) this.grid = new Float32Array(Math.max(n, this.grid.length * 2));
    const grid = this.grid;
    // Seeds of one distance transform: the outline itself. A partly covered cell holds the edge at
    // about |0.5 - coverage| from its centre; two neighbouring cells, one full and one empty, have
    // the edge between them, half a cell from each. Float rounding in the running sums leaves crumbs
    // like 1e-7 in empty cells: those are snapped.
    for (let i = 0; i < n; i++) {
      const a = coverage[i]!;
      if (a > COVERAGE_EPSILON && a < 1 - COVERAGE_EPSILON) {
        const d = 0.5 - a;
        grid[i] = d * d;
      } else grid[i] = FAR;
    }
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) {
        const i = row + x;
        const a = coverage[i]!;
        const full = a >= 1 - COVERAGE_EPSILON;
        const empty = a <= COVERAGE_EPSILON;
        if (!full && !empty) continue;
        if (x + 1 < w) {
          const b = coverage[i + 1]!;
          if ((full && b <= COVERAGE_EPSILON) || (empty && b >= 1 - COVERAGE_EPSILON)) {
            if (grid[i]! > 0.25) grid[i] = 0.25;
            if (grid[i + 1]! > 0.25) grid[i + 1] = 0.25;
          }
        }
        if (y + 1 < h) {
          const b = coverage[i + w]!;
          if ((full && b <= COVERAGE_EPSILON) || (empty && b >= 1 - COVERAGE_EPSILON)) {
            if (grid[i]! > 0.25) grid[i] = 0.25;
            if (grid[i + w]! > 0.25) grid[i + w] = 0.25;
          }
        }
      }
    }
    const half = (S - 1) >> 1;
    this.edt.run(grid, w, h, half, S);

    const bitmap = new Uint8Array(outW * outH);
    const scale = 256 / SDF_RADIUS_PX / S;
    const shift = SDF_CUTOFF * 256;
    for (let y = 0; y < outH; y++) {
      const row = (y * S + half) * w;
      for (let x = 0; x < outW; x++) {
        const i = row + x * S + half;
        const distance = Math.sqrt(grid[i]!);
        const d = (coverage[i]! >= 0.5 ? -distance : distance) * scale + shift;
        bitmap[y * outW + x] = d >= 255 ? 0 : d <= 0 ? 255 : 255 - Math.floor(d);
      }
    }
    return { width, height, left, top, bitmap };
  }
}
