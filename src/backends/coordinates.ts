/** Decimal degrees for upstream query strings and cache keys: at most 7 decimals (~1 cm), never exponent notation. */
export function formatCoordinate(n: number): string {
  const r = Math.round(n * 1e7) / 1e7;
  if (r === 0) return "0";
  // String() is exact and short here; below 1e-6 it would switch to exponent notation.
  if (r >= 1e-6 || r <= -1e-6) return String(r);
  return r.toFixed(7).replace(/0+$/, "");
}
