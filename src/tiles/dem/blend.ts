// Bilinear interpolation that uses only real data, the one rule for both grids (building tiles from
// .hgt/GeoTIFF samples) and tiles (answering the elevation API from pixels): a point takes the height
// of the cell it falls in, so it has no height when its nearest corner has none (NaN: a void, or no
// source at all); otherwise corners without data drop out and the others share their weight. Next to a
// void or the edge of a mosaic's gap, answers thus come from the heights around them, never from a
// filler value, and a point in a void answers no data rather than a guess.

/**
 * The blend of corners a (north-west), b (north-east), c (south-west), d (south-east) at fractions
 * tx (eastwards) and ty (southwards) from a, each 0..1; NaN corners hold no data. Null when the
 * corner nearest the point holds none.
 */
export function blendValid(a: number, b: number, c: number, d: number, tx: number, ty: number): number | null {
  const nearest = ty < 0.5 ? (tx < 0.5 ? a : b) : tx < 0.5 ? c : d;
  if (Number.isNaN(nearest)) return null;
  // The plain formula when every corner has data, so such answers stay bit for bit what they were.
  if (!Number.isNaN(a + b + c + d)) return (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty;
  let sum = 0;
  let weight = 0;
  for (const [h, w] of [
    [a, (1 - tx) * (1 - ty)],
    [b, tx * (1 - ty)],
    [c, (1 - tx) * ty],
    [d, tx * ty],
  ] as const)
    if (!Number.isNaN(h)) {
      sum += h * w;
      weight += w;
    }
  // The nearest corner weighs at least a quarter, so weight is never 0 here.
  return sum / weight;
}
