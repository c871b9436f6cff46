// The longitude/latitude systems taken as WGS84 as they are. Each is tied to the ITRF (or was, at an
// epoch), so it differs from WGS84 by a metre or two at most: under a pixel down to zoom 16, and far
// less than the data's own accuracy. Every reader that is told its data's EPSG code uses this one list,
// so a dataset reads alike as Shapefile, GeoPackage or FlatGeobuf.
export const LONLAT_AS_WGS84 = new Set([
  4326, // WGS 84
  4979, // WGS 84 (3D)
  4269, // NAD83
  6318, // NAD83(2011)
  4617, // NAD83(CSRS)
  4258, // ETRS89 (INSPIRE data)
  4937, // ETRS89 (3D)
  4283, // GDA94
  7844, // GDA2020
  4167, // NZGD2000
  4619, // SWEREF99
  4612, // JGD2000
  6668, // JGD2011
  4674, // SIRGAS 2000
  4490, // CGCS2000
]);
