// Squared Euclidean distance transform (Felzenszwalb & Huttenlocher, "Distance Transforms of Sampled
// Functions"): the lower envelope of parabolas rooted at every sample, one dimension at a time.
// `grid` holds f(p) on entry (0 at seeds, a small squared offset at sub-cell seeds, FAR elsewhere)
// and min_q(|p - q|^2 + f(q)) on return.

export const FAR = 1e20;

export class DistanceTransform {
  private f = new Float64Array(0);
  private z = new Float64Array(0);
  private v = new Int32Array(0);

  private ensure(n: number): void {
    if (this.f.length >= n) return;
    this.f = new Float64Array(n);
    this.z = new Float64Array(n + 1);
    this.v = new Int32Array(n);
  }

  /**
   * Rows first, then only the columns x = firstColumn + k * columnStep: the caller reads distances on
   * those columns only (the SDF samples every SUPERSAMPLE-th cell), which saves a third of the work.
   */
  run(grid: Float32Array, width: number, height: number, firstColumn = 0, columnStep = 1): void {
    this.ensure(Math.max(width, height));
    for (let y = 0; y < height; y++) this.pass(grid, y * width, 1, width);
    for (let x = firstColumn; x < width; x += columnStep) this.pass(grid, x, width, height);
  }

  private pass(grid: Float32Array, offset: number, stride: number, n: number): void {
    const f = this.f, z = this.z, v = this.v;
    let seeds = false;
    let allSeeds = true;
    for (let q = 0; q < n; q++) {
      const value = grid[offset + q * stride]!;
      f[q] = value;
      if (value < FAR) seeds = true;
      if (value !== 0) allSeeds = false;
    }
    // Nothing to propagate: no seed at all, or every sample is a seed at distance 0.
    if (!seeds || allSeeds) return;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    let k = 0;
    for (let q = 1; q < n; q++) {
      const fq = f[q]! + q * q;
      let r = v[k]!;
      let s = (fq - (f[r]! + r * r)) / (2 * (q - r));
      while (s <= z[k]!) {
        k--;
        r = v[k]!;
        s = (fq - (f[r]! + r * r)) / (2 * (q - r));
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < n; q++) {
      while (z[k + 1]! < q) k++;
      const r = v[k]!;
      grid[offset + q * stride] = (q - r) * (q - r) + f[r]!;
    }
  }
}
