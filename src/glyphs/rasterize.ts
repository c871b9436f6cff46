// Exact-area coverage rasterizer for closed polylines (nonzero-ish fill: |winding| clamped to 1).
// Every edge adds its signed area contribution to an accumulation buffer, cell by cell along each
// scanline it crosses; a running sum along each row then gives the covered fraction of every cell.
// Coordinates are raster cells, y down; the caller keeps all geometry at least one cell inside the
// left and right borders, so no contribution lands outside its row.

export class CoverageRaster {
  acc: Float32Array = new Float32Array(0);
  width = 0;
  height = 0;

  reset(width: number, height: number): void {
    const n = width * height;
    if (this.acc.length < n) this.acc = new Float32Array(Math.max(n, this.acc.length * 2));
    else this.acc.fill(0, 0, n);
    this.width = width;
    this.height = height;
  }

  line(x0: number, y0: number, x1: number, y1: number): void {
    if (y0 === y1) return;
    let dir = 1;
    if (y0 > y1) {
      dir = -1;
      let t = x0; x0 = x1; x1 = t;
      t = y0; y0 = y1; y1 = t;
    }
    const acc = this.acc;
    const w = this.width;
    const dxdy = (x1 - x0) / (y1 - y0);
    let x = x0;
    let yStart = Math.floor(y0);
    if (yStart < 0) {
      x -= y0 * dxdy;
      yStart = 0;
    }
    const yEnd = Math.min(this.height, Math.ceil(y1));
    for (let y = yStart; y < yEnd; y++) {
      const row = y * w;
      const dy = Math.min(y + 1, y1) - Math.max(y, y0);
      const xNext = x + dxdy * dy;
      const d = dy * dir;
      const xa = x < xNext ? x : xNext;
      const xb = x < xNext ? xNext : x;
      const xaFloor = Math.floor(xa);
      const xbCeil = Math.ceil(xb);
      if (xbCeil <= xaFloor + 1) {
        // The edge stays inside one cell on this row: the cell gets the part left of the edge's mean x.
        const frac = 0.5 * (x + xNext) - xaFloor;
        acc[row + xaFloor]! += d - d * frac;
        acc[row + xaFloor + 1]! += d * frac;
      } else {
        const inv = 1 / (xb - xa);
        const fa = xa - xaFloor;
        const first = 0.5 * inv * (1 - fa) * (1 - fa);
        const fb = xb - xbCeil + 1;
        const last = 0.5 * inv * fb * fb;
        acc[row + xaFloor]! += d * first;
        if (xbCeil === xaFloor + 2) {
          acc[row + xaFloor + 1]! += d * (1 - first - last);
        } else {
          const second = inv * (1.5 - fa);
          acc[row + xaFloor + 1]! += d * (second - first);
          for (let xi = xaFloor + 2; xi < xbCeil - 1; xi++) acc[row + xi]! += d * inv;
          const beforeLast = second + (xbCeil - xaFloor - 3) * inv;
          acc[row + xbCeil - 1]! += d * (1 - beforeLast - last);
        }
        acc[row + xbCeil]! += d * last;
      }
      x = xNext;
    }
  }

  /** Turns the accumulation buffer into coverage in [0, 1], in place. */
  finish(): Float32Array {
    const acc = this.acc;
    const w = this.width;
    for (let y = 0; y < this.height; y++) {
      let sum = 0;
      const row = y * w;
      for (let x = 0; x < w; x++) {
        sum += acc[row + x]!;
        const a = sum < 0 ? -sum : sum;
        acc[row + x] = a > 1 ? 1 : a;
      }
    }
    return acc;
  }
}
