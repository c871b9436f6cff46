/** Decimal degrees for upstream query strings: at most 7 decimals (~1 cm), never exponent notation. */
export function formatCoordinate(n: number): string {
  const s = n.toFixed(7).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
}
