// Web Mercator (EPSG:3857) metres back to WGS84 degrees, for Shapefile and FlatGeobuf inputs.
const R = 6378137;

/** Longitudes this little past ±180° are the world's edge after rounding (20037508.342789244 m gives 180.00000000000003°). */
const EDGE_SLACK = 1e-6;

export function unproject(x: number, y: number): [number, number] {
  const lon = (x / R) * (180 / Math.PI);
  // -20037508.342789244 m comes back as -180.00000000000003°, which the position check refused: Russia,
  // Fiji and Antarctica went missing from every Web Mercator input.
  const edge = Math.abs(lon) > 180 && Math.abs(lon) - 180 < EDGE_SLACK ? Math.sign(lon) * 180 : lon;
  return [edge, (Math.atan(Math.exp(y / R)) * 2 - Math.PI / 2) * (180 / Math.PI)];
}

function coords(c: unknown): unknown {
  if (!Array.isArray(c)) return c;
  if (typeof c[0] === "number") return unproject(c[0], c[1] as number);
  return c.map(coords);
}

export function unprojectGeometry<G>(g: G): G {
  if (!g || typeof g !== "object") return g;
  const geom = g as { type?: string; coordinates?: unknown; geometries?: unknown[] };
  if (geom.type === "GeometryCollection" && Array.isArray(geom.geometries)) return { ...geom, geometries: geom.geometries.map(unprojectGeometry) } as G;
  return { ...geom, coordinates: coords(geom.coordinates) } as G;
}

/** Longitude/latitude to the Web Mercator unit square (x east, y south); latitudes clamped to ±85.05°. */
export function toUnitSquare(lon: number, lat: number): [number, number] {
  const sin = Math.sin((Math.max(-85.0511287798, Math.min(85.0511287798, lat)) * Math.PI) / 180);
  return [lon / 360 + 0.5, 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI];
}

/** The Web Mercator unit square back to longitude/latitude. */
export function fromUnitSquare(x: number, y: number): [number, number] {
  return [x * 360 - 180, (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI];
}
