// GeoPackage uploads over HTTP (raw body and multipart, alone, beside other files, zipped): one layer per
// feature table, attributes typed from the column declarations, Web Mercator unprojected, and what is
// refused at once (other coordinate systems, raster-only files) or fails later (a corrupt geometry blob)
// with a message naming the file, table and row. The GeoPackages are written in geopackage-fixtures.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { zipSync } from "fflate";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Polygon } from "geojson";
import type { TestApp } from "../../../support/app";
import { acmeApp, cities, createTileset, upload, uploadReady, versionTile, waitForVersion } from "./fixtures";
import { EPSG_2056, EPSG_3857, gpkgBlob, writeGeopackage, type FeatureTable } from "./geopackage-fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
});
afterAll(() => t.close());

const R = 6378137;
const mercator = (lon: number, lat: number) => [(lon * Math.PI * R) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];

const square = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
];

const places: FeatureTable = {
  name: "places",
  geometryType: "POINT",
  columns: [
    ["name", "TEXT"],
    ["population", "INTEGER"],
    ["area", "REAL"],
    ["capital", "BOOLEAN"],
    ["founded", "DATE"],
    ["updated", "DATETIME"],
    ["photo", "BLOB"],
  ],
  rows: [
    [gpkgBlob({ type: "Point", coordinates: [7.4474, 46.948] }, { bigEndian: true, bigEndianHeader: true }), "Bern", 133115, 51.62, 1, "1191-01-01", "2024-05-01T12:00:00.000Z", new Uint8Array([1, 2, 3])],
    [gpkgBlob({ type: "Point", coordinates: [8.5417, 47.3769] }, { z: true, envelope: true }), "Zürich", 421878, 87.88, 0, "1218-01-01", "2024-05-02T08:30:00.000Z", null],
    [gpkgBlob({ type: "MultiPoint", coordinates: [[6.1432, 46.2044]] }), "Genève", null, 15.93, 0, null, null, null],
    [null, "Nowhere", 1, 1, 0, null, null, null],
    [gpkgBlob(null), "Empty", 1, 1, 0, null, null, null],
  ],
};

const roads: FeatureTable = {
  name: "roads",
  geometryType: "GEOMETRY",
  columns: [["ref", "TEXT"]],
  rows: [
    [gpkgBlob({ type: "LineString", coordinates: [[-60, -10], [0, 10], [60, -10]] }, { envelope: true }), "A1"],
    [gpkgBlob({ type: "MultiLineString", coordinates: [[[-100, 30], [-80, 40]], [[-70, 30], [-50, 40]]] }, { z: true, bigEndian: true }), "A2"],
  ],
};

const hole: Polygon = { type: "Polygon", coordinates: [square(-40, -40, 40, 40), square(-10, -10, 10, 10).reverse()] };
const parcels: FeatureTable = {
  name: "parcels",
  geometryType: "MULTIPOLYGON",
  columns: [["owner", "TEXT"]],
  rows: [
    [gpkgBlob(hole, { envelope: true }), "with hole"],
    [gpkgBlob({ type: "MultiPolygon", coordinates: [[square(100, 0, 110, 10)], [square(120, 0, 130, 10)]] }), "two parts"],
  ],
};

const webMercator: FeatureTable = {
  name: "Web Mercator pts",
  srsId: 3857,
  geometryType: "POINT",
  columns: [["label", "TEXT"]],
  rows: [
    [gpkgBlob({ type: "Point", coordinates: mercator(10, 50) }, { srsId: 3857 }), "ten-fifty"],
    [gpkgBlob({ type: "Point", coordinates: mercator(-120, -30) }, { srsId: 3857 }), "far"],
  ],
};

function gpkg(name: string, opts: Parameters<typeof writeGeopackage>[1]) {
  return writeGeopackage(join(t.dataDir, name), opts);
}

async function fresh() {
  const slug = `gpkg-${++counter}`;
  await createTileset(t, "acme", headers, { slug });
  return slug;
}

const ready = async (body: BodyInit, query = "") => uploadReady(t, headers, `gpkg-${++counter}`, body, query);

async function tile(slug: string, z: number, x: number, y: number) {
  const decoded = await versionTile(t, headers, slug, z, x, y);
  expect(decoded).not.toBeNull();
  return decoded!;
}

/** A tile layer's features as GeoJSON (longitude/latitude), by a property. */
function features(vt: VectorTile, layer: string, z: number, x: number, y: number, key: string) {
  const l = vt.layers[layer];
  expect(l).toBeDefined();
  return new Map(Array.from({ length: l!.length }, (_, i) => l!.feature(i).toGeoJSON(x, y, z)).map((f) => [f.properties![key], f]));
}

function form(files: [string, BodyInit | Uint8Array][], recipe?: unknown) {
  const f = new FormData();
  for (const [name, body] of files) f.append("file", new Blob([body as BlobPart]), name);
  if (recipe !== undefined) f.append("recipe", JSON.stringify(recipe));
  return f;
}

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe("GeoPackage feature tables become layers", () => {
  test("four tables (points, lines, polygons, Web Mercator): one layer each, typed attributes, geometry as written", async () => {
    const file = gpkg("world.gpkg", { features: [places, roads, parcels, webMercator], srs: [EPSG_3857] });
    const { slug, v } = await ready(file as BodyInit, "?filename=world.gpkg&point_spacing=0&maxzoom=4");
    expect(v.source_format).toBe("geopackage");
    expect(v.layers).toEqual([
      { id: "places", fields: { name: "String", population: "Number", area: "Number", capital: "Boolean", founded: "String", updated: "String" }, minzoom: 0, maxzoom: 4 },
      { id: "roads", fields: { ref: "String" }, minzoom: 0, maxzoom: 4 },
      { id: "parcels", fields: { owner: "String" }, minzoom: 0, maxzoom: 4 },
      { id: "Web_Mercator_pts", fields: { label: "String" }, minzoom: 0, maxzoom: 4 },
    ]);
    expect(v.stats.features_by_layer).toEqual({ places: 3, roads: 2, parcels: 2, Web_Mercator_pts: 2 });
    expect(v.stats.features_skipped).toBe(2);
    expect(v.warnings).toContain("world.gpkg (table places): fid 4 skipped: has no geometry");
    expect(v.warnings).toContain("world.gpkg (table places): fid 5 skipped: has an empty geometry");
    expect(v.warnings).toContain("2 of 11 features were skipped because they have no geometry (null or empty)");

    const world = await tile(slug, 0, 0, 0);
    const towns = features(world, "places", 0, 0, 0, "name");
    expect([...towns.keys()].sort()).toEqual(["Bern", "Genève", "Zürich"]);
    // The fid is the feature id, not an attribute; booleans stay booleans, dates stay text, the BLOB column is left out.
    expect([...towns.values()].map((f) => [f.properties!.name, f.id])).toEqual([["Bern", 1], ["Zürich", 2], ["Genève", 3]]);
    expect(towns.get("Bern")!.properties).toEqual({ name: "Bern", population: 133115, area: 51.62, capital: true, founded: "1191-01-01", updated: "2024-05-01T12:00:00.000Z" });
    expect(towns.get("Zürich")!.properties!.capital).toBe(false);
    expect(towns.get("Genève")!.properties).toEqual({ name: "Genève", area: 15.93, capital: false });
    const at = (name: string) => (towns.get(name)!.geometry as { coordinates: number[] }).coordinates;
    expect(at("Bern")[0]).toBeCloseTo(7.4474, 0);
    expect(at("Bern")[1]).toBeCloseTo(46.948, 0);
    expect(at("Zürich")[0]).toBeCloseTo(8.5417, 0);

    const lines = features(world, "roads", 0, 0, 0, "ref");
    expect(lines.get("A1")!.geometry.type).toBe("LineString");
    expect(lines.get("A2")!.geometry.type).toBe("MultiLineString");

    const shapes = features(world, "parcels", 0, 0, 0, "owner");
    const withHole = shapes.get("with hole")!.geometry as Polygon;
    expect(withHole.type).toBe("Polygon");
    expect(withHole.coordinates).toHaveLength(2);
    expect(withHole.coordinates[0]![0]![0]).toBeCloseTo(-40, 0);
    expect(withHole.coordinates[1]![0]![0]).toBeCloseTo(-10, 0);
    expect(shapes.get("two parts")!.geometry.type).toBe("MultiPolygon");

    // Web Mercator metres come out as longitude/latitude.
    const merc = features(world, "Web_Mercator_pts", 0, 0, 0, "label");
    const ten = (merc.get("ten-fifty")!.geometry as { coordinates: number[] }).coordinates;
    expect(ten[0]).toBeCloseTo(10, 0);
    expect(ten[1]).toBeCloseTo(50, 0);
    expect(v.bounds[0]).toBeCloseTo(-120, 3);
    expect(v.bounds[1]).toBeCloseTo(-40, 3);
    // A closer look at the hole's edge: the z4 tile holding (-10, -10) has the ring there.
    const z4 = await tile(slug, 4, 7, 8);
    const near = z4.layers.parcels!.feature(0).toGeoJSON(7, 8, 4).geometry as Polygon;
    expect(near.coordinates.flat().some(([x, y]) => Math.abs(x! + 10) < 0.01 && Math.abs(y! + 10) < 0.01)).toBe(true);
  });

  test("one table alone is the upload's one layer, named after the tileset; a file without application_id is still a GeoPackage", async () => {
    const file = gpkg("merc.gpkg", { features: [webMercator], srs: [EPSG_3857], applicationId: false });
    const { slug, v } = await ready(file as BodyInit, "?point_spacing=0");
    expect(v.source_format).toBe("geopackage");
    expect(v.layers.map((l: any) => l.id)).toEqual([slug]);
    const far = (features(await tile(slug, 0, 0, 0), slug, 0, 0, 0, "label").get("far")!.geometry as { coordinates: number[] }).coordinates;
    expect(far[0]).toBeCloseTo(-120, 0);
    expect(far[1]).toBeCloseTo(-30, 0);
  });

  test("multipart beside a GeoJSON file, and zipped: tables named after themselves, recipe settings by table name", async () => {
    const file = gpkg("two.gpkg", { features: [places, roads] });
    const towns = JSON.stringify(await cities(20));
    const { slug, v } = await ready(form([["two.gpkg", file], ["towns.geojson", towns]], { point_spacing: 0, layers: { roads: { layer: "streets" }, places: { include: ["name"] } } }));
    expect(v.source_format).toBe("geopackage+geojson");
    expect(v.layers.map((l: any) => [l.id, Object.keys(l.fields)])).toEqual([
      ["places", ["name"]],
      ["streets", ["ref"]],
      ["towns", ["name", "country", "population"]],
    ]);
    expect(Object.keys((await tile(slug, 0, 0, 0)).layers).sort()).toEqual(["places", "streets", "towns"]);

    const zipped = await ready(zipSync({ "data/two.gpkg": file, "data/towns.geojson": new TextEncoder().encode(towns) }) as BodyInit, "?point_spacing=0");
    expect(zipped.v.layers.map((l: any) => l.id)).toEqual(["towns", "places", "roads"]); // zip entries in name order
    expect(zipped.v.stats.features).toBe(3 + 2 + 20);
  });

  test("an empty table among others makes no layer, with a warning", async () => {
    const file = gpkg("some-empty.gpkg", { features: [roads, { name: "nothing", rows: [] }] });
    const { v, slug } = await ready(file as BodyInit, "?filename=some-empty.gpkg");
    expect(v.layers.map((l: any) => l.id)).toEqual([slug]);
    expect(v.warnings).toContain("some-empty.gpkg: table nothing has no rows; no layer made");
  });
});

describe("refused at once, or failed with a message", () => {
  test("another coordinate system, raster tiles only, no feature tables: 422 naming what is wrong", async () => {
    const slug = await fresh();
    const swiss = gpkg("swiss.gpkg", { features: [places, { ...parcels, srsId: 2056 }], srs: [EPSG_2056] });
    const res = await upload(t, "acme", slug, headers, swiss as BodyInit, "?filename=swiss.gpkg");
    expect(res.status).toBe(422);
    const err = await errorOf(res);
    expect(err.code).toBe("INVALID_SOURCE_DATA");
    expect(err.message).toContain("swiss.gpkg (table parcels): coordinates use EPSG:2056 (CH1903+ / LV95)");
    expect(err.message).toContain("ogr2ogr -t_srs EPSG:4326");

    const raster = gpkg("raster.gpkg", { tiles: ["ortho"] });
    const alone = await upload(t, "acme", slug, headers, raster as BodyInit);
    expect(alone.status).toBe(422);
    expect((await errorOf(alone)).message).toMatch(/^upload: the GeoPackage holds only tiles \(ortho\), no feature tables/);
    // Among other files it is named, and not taken for an MBTiles archive.
    const among = await upload(t, "acme", slug, headers, form([["towns.geojson", JSON.stringify(await cities(5))], ["raster.gpkg", raster]]));
    expect(among.status).toBe(422);
    const amongErr = await errorOf(among);
    expect(amongErr.message).toContain("raster.gpkg: the GeoPackage holds only tiles");
    expect(amongErr.message).not.toContain("uploaded alone");

    const notes = gpkg("notes.gpkg", { attributes: ["notes"] });
    const none = await upload(t, "acme", slug, headers, notes as BodyInit, "?filename=notes.gpkg");
    expect(none.status).toBe(422);
    expect((await errorOf(none)).message).toContain("notes.gpkg: the GeoPackage holds no feature tables (gpkg_contents lists notes (attributes))");

    const cartesian = gpkg("xy.gpkg", { features: [{ ...roads, srsId: -1 }] });
    const xy = await upload(t, "acme", slug, headers, cartesian as BodyInit, "?filename=xy.gpkg");
    expect(xy.status).toBe(422);
    expect((await errorOf(xy)).message).toContain("xy.gpkg (table roads): the coordinates are in an undefined Cartesian system");

    expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
  });

  test("a corrupt geometry blob fails the version naming the table and fid; a truncated file is refused as damaged", async () => {
    const bad = gpkg("bad.gpkg", {
      features: [
        places,
        { ...roads, rows: [roads.rows[0]!, [Uint8Array.from(Buffer.from("0101000000000000000000F03F0000000000000040", "hex")), "A9"]] },
      ],
    });
    const slug = await fresh();
    const res = await upload(t, "acme", slug, headers, bad as BodyInit, "?filename=bad.gpkg");
    expect(res.status).toBe(202);
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.state).toBe("failed");
    expect(v.error).toBe("bad.gpkg (table roads): fid 2: the geometry is not a GeoPackage geometry blob (it starts 0x0101, not 'GP')");

    const cut = gpkg("cut.gpkg", { features: [{ ...parcels, srsId: 4326, rows: Array.from({ length: 400 }, (_, i) => parcels.rows[i % 2]!) }] });
    // Cut short, the file's last table pages are gone: refused at once (the fid range is read at upload).
    const res2 = await upload(t, "acme", slug, headers, cut.slice(0, Math.floor(cut.length * 0.6)) as BodyInit, "?filename=cut.gpkg");
    expect(res2.status).toBe(422);
    expect((await errorOf(res2)).message).toBe("cut.gpkg: the GeoPackage is damaged or not what its tables declare (database disk image is malformed); write it again, e.g. with ogr2ogr -f GPKG");
    // A page in the middle overwritten: the upload looks fine, reading stops there with the last good fid.
    const garbled = cut.slice();
    const pages = garbled.length / 4096;
    garbled.fill(0xff, Math.floor(pages / 2) * 4096, Math.floor(pages / 2) * 4096 + 4096);
    const res3 = await upload(t, "acme", slug, headers, garbled as BodyInit, "?filename=cut.gpkg");
    expect(res3.status).toBe(202);
    const v3 = (await waitForVersion(t, "acme", slug, ((await res3.json()) as any).version, headers)) as any;
    expect(v3.state).toBe("failed");
    expect(v3.error).toMatch(/^cut\.gpkg \(table parcels\): the GeoPackage is damaged after fid \d+ \(database disk image is malformed\); write it again/);
  });
});
