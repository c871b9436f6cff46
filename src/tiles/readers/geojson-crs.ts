// The "crs" member of GeoJSON 2008, which RFC 7946 dropped but GDAL still writes for data it was not asked
// to reproject (`ogr2ogr -f GeoJSON out.json in.shp` keeps a Web Mercator shapefile in metres, naming
// "urn:ogc:def:crs:EPSG::3857"). Without a look at it such a file would be read as degrees and fail
// as out of range, or worse, land somewhere else. Longitude/latitude systems within metres of WGS84
// are read as they are, Web Mercator is unprojected, and anything else is refused by name.
import { InvalidSource } from "../errors";
import { LONLAT_AS_WGS84 } from "./lonlat-datums";

export type GeojsonCoordinates = "lonlat" | "mercator";

/** EPSG and ESRI codes of spherical Web Mercator, the old unofficial ones included. */
const MERCATOR_CODES = new Set([3857, 900913, 3785, 102100, 102113]);

/** What the coordinates of a document with this "crs" object (its JSON text) are. */
export function geojsonCoordinates(crsText: string, label: string): GeojsonCoordinates {
  let crs: { type?: unknown; properties?: { name?: unknown; code?: unknown; href?: unknown } | null };
  try {
    crs = JSON.parse(crsText);
  } catch {
    throw new InvalidSource(`${label}: the "crs" member is not valid JSON`);
  }
  const props = crs.properties ?? {};
  let name: string;
  if (crs.type === "name" && typeof props.name === "string") name = props.name;
  else if (crs.type === "EPSG" && (typeof props.code === "number" || typeof props.code === "string")) name = `EPSG:${props.code}`;
  else if ((crs.type === "link" || crs.type === "url") && typeof props.href === "string")
    throw new InvalidSource(`${label}: the "crs" member links to ${props.href.slice(0, 200)}, which is not read here; reproject to WGS84 (EPSG:4326), e.g. ogr2ogr -t_srs EPSG:4326`);
  else throw new InvalidSource(`${label}: the "crs" member names no coordinate system (it needs "type": "name" and "properties": {"name": ...})`);

  const coordinates = coordinatesNamed(name);
  if (coordinates === null) throw new InvalidSource(`${label}: ${refusedCrs(name)}`);
  return coordinates;
}

/** The coordinates a system's name ("urn:ogc:def:crs:EPSG::3857", "EPSG:4258", "OGC:1.3:CRS84") gives; null for any other. */
export function coordinatesNamed(name: string): GeojsonCoordinates | null {
  if (/(^|[:/])CRS:?84$/i.test(name.trim())) return "lonlat";
  const code = /(?:EPSG|ESRI)\b.*?(\d+)$/i.exec(name.trim());
  if (code) {
    const n = Number(code[1]);
    if (LONLAT_AS_WGS84.has(n)) return "lonlat";
    if (MERCATOR_CODES.has(n)) return "mercator";
  }
  return null;
}

export const refusedCrs = (name: string) =>
  `coordinates use ${name.slice(0, 200)} (its "crs" member); reproject to WGS84 (EPSG:4326) or Web Mercator (EPSG:3857) first, e.g. ogr2ogr -t_srs EPSG:4326`;
