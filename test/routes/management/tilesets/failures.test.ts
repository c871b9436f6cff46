// Bad inputs: refused at once (400, 413, 415, 422) or ending the version `failed` with a message that
// names the file, the line or feature, and what is wrong; nothing crashes, nothing half-written stays.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { unzipSync, zipSync } from "fflate";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { acmeApp, PNG_1x1, UTM_PRJ, cities, countries, createTileset, flatgeobuf, pmtiles, shapefileZip, toNdjson, upload, vectorTiles, waitForVersion, writeMbtiles } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
});
afterAll(() => t.close());

async function fresh() {
  const slug = `bad-${++counter}`;
  await createTileset(t, "acme", headers, { slug });
  return slug;
}

/** Uploads and waits: the version must end failed; returns its record. */
async function failing(body: BodyInit, query = "") {
  const slug = await fresh();
  const res = await upload(t, "acme", slug, headers, body, query);
  expect(res.status).toBe(202);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
  expect(v.state).toBe("failed");
  expect(v.tilejson_url).toBeNull();
  // nothing left behind but the row: no upload, no archive, no temp file
  expect(readdirSync(join(t.dataDir, "uploads")).filter((f) => !f.startsWith("keep"))).toEqual([]);
  // and it cannot be published
  const pub = await t.fetch(`/api/v1/orgs/acme/tilesets/${slug}/publish`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ version: 1 }) });
  expect(pub.status).toBe(409);
  return { slug, v };
}

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe("refused at once", () => {
  test("unsupported content is 415 whatever its Content-Type says", async () => {
    const slug = await fresh();
    const png = await upload(t, "acme", slug, { ...headers, "content-type": "application/geo+json" }, PNG_1x1);
    expect(png.status).toBe(415);
    const e = await errorOf(png);
    expect(e.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(e.message).toContain("GeoJSON");
    const gz = await upload(t, "acme", slug, headers, Bun.gzipSync(new TextEncoder().encode(JSON.stringify(countries()))));
    expect(gz.status).toBe(415);
    expect((await errorOf(gz)).message).toContain("gzip");
    const text = await upload(t, "acme", slug, headers, "hello world, this is not data");
    expect(text.status).toBe(415);
    const versions = (await (await t.fetch(`/api/v1/orgs/acme/tilesets/${slug}/versions`, { headers })).json()) as any;
    expect(versions.versions).toEqual([]);
    expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
  });

  test("CSV without longitude/latitude columns is 422 INVALID_SOURCE_DATA naming the columns", async () => {
    const slug = await fresh();
    const res = await upload(t, "acme", slug, headers, "name,east,north\nOslo,10.7,59.9\n", "?filename=towns.csv");
    expect(res.status).toBe(422);
    const e = await errorOf(res);
    expect(e.code).toBe("INVALID_SOURCE_DATA");
    expect(e.message).toContain("towns.csv");
    expect(e.message).toContain("east");
    expect(e.message).toContain("lon");
  });

  test("JSON that is not GeoJSON is 422 INVALID_SOURCE_DATA saying what to send", async () => {
    const slug = await fresh();
    const array = await upload(t, "acme", slug, headers, JSON.stringify([{ type: "Feature", geometry: null, properties: {} }]));
    expect(array.status).toBe(422);
    expect((await errorOf(array)).message).toContain("FeatureCollection");
    const untyped = await upload(t, "acme", slug, headers, JSON.stringify({ features: [] }, null, 2));
    expect(untyped.status).toBe(422);
    expect((await errorOf(untyped)).message).toContain('"type"');
    // The same on one line (minified) is refused at once too, not read as newline-delimited GeoJSON.
    for (const body of [JSON.stringify({ foo: 1 }), JSON.stringify({ features: [] }), JSON.stringify({ type: "Bogus" })]) {
      const oneLine = await upload(t, "acme", slug, headers, body);
      expect(oneLine.status).toBe(422);
      expect((await errorOf(oneLine)).message).toContain('"type"');
    }
    const topo = await upload(t, "acme", slug, headers, JSON.stringify({ type: "Topology", objects: {}, arcs: [] }));
    expect(topo.status).toBe(422);
    expect((await errorOf(topo)).message).toContain("TopoJSON");
    const versions = await (await t.fetch(`/api/v1/orgs/acme/tilesets/${slug}/versions`, { headers })).json();
    expect(versions.versions).toEqual([]);
  });

  test("TopoJSON and Esri JSON far over the 64 KiB head are 422 at once, on one line or pretty-printed", async () => {
    const slug = await fresh();
    // world-atlas' 110m countries: 107 KB on one line, so its head does not parse as JSON.
    const topo = await Bun.file(require.resolve("world-atlas/countries-110m.json")).text();
    expect(topo.length).toBeGreaterThan(100_000);
    for (const body of [topo, JSON.stringify(JSON.parse(topo), null, 2)]) {
      const res = await upload(t, "acme", slug, headers, body, "?filename=countries-110m.json");
      expect(res.status).toBe(422);
      const e = await errorOf(res);
      expect(e.code).toBe("INVALID_SOURCE_DATA");
      expect(e.message).toBe("countries-110m.json: TopoJSON, not GeoJSON; convert it first (topojson-client's topo2geo, or ogr2ogr -f GeoJSON out.geojson in.json)");
    }
    // An ArcGIS REST query result (f=json): no "type", features with "attributes" and Esri geometries.
    const esri = {
      displayFieldName: "NAME",
      fieldAliases: { NAME: "Name" },
      geometryType: "esriGeometryPolygon",
      spatialReference: { wkid: 4326, latestWkid: 4326 },
      fields: [{ name: "NAME", type: "esriFieldTypeString", alias: "Name", length: 80 }],
      features: countries().features.map((f) => ({ attributes: { NAME: f.properties!.name }, geometry: { rings: f.geometry.type === "Polygon" ? f.geometry.coordinates : f.geometry.coordinates.flat() } })),
    };
    const { features } = esri;
    for (const body of [JSON.stringify(esri), JSON.stringify(esri, null, 2), JSON.stringify({ features })]) {
      expect(body.length).toBeGreaterThan(200_000);
      const res = await upload(t, "acme", slug, headers, body);
      expect(res.status).toBe(422);
      const e = await errorOf(res);
      expect(e.code).toBe("INVALID_SOURCE_DATA");
      expect(e.message).toContain("upload: Esri JSON");
      expect(e.message).toContain("ogr2ogr -f GeoJSON out.geojson in.json");
    }
    const versions = await (await t.fetch(`/api/v1/orgs/acme/tilesets/${slug}/versions`, { headers })).json();
    expect(versions.versions).toEqual([]);
  });

  test("empty body is 400; bad recipe is 400 naming the option", async () => {
    const slug = await fresh();
    const empty = await upload(t, "acme", slug, headers, "");
    expect(empty.status).toBe(400);
    const badZoom = await upload(t, "acme", slug, headers, JSON.stringify(countries()), "?minzoom=8&maxzoom=3");
    expect(badZoom.status).toBe(400);
    expect((await errorOf(badZoom)).message).toContain("minzoom");
    const outOfRange = await upload(t, "acme", slug, headers, JSON.stringify(countries()), "?maxzoom=40");
    expect(outOfRange.status).toBe(400);
    expect((await errorOf(outOfRange)).message).toContain("maxzoom");
    const form = new FormData();
    form.append("file", new Blob([JSON.stringify(countries())]), "c.geojson");
    form.append("recipe", "{not json");
    const badRecipe = await upload(t, "acme", slug, headers, form);
    expect(badRecipe.status).toBe(400);
    expect((await errorOf(badRecipe)).message).toContain("recipe");
    // Several files are received into a directory, which must go too.
    form.append("file", new Blob([JSON.stringify(countries())]), "d.geojson");
    expect((await upload(t, "acme", slug, headers, form)).status).toBe(400);
    expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
  });

  test("unknown tileset is 404 before the body is read", async () => {
    const res = await upload(t, "acme", "nope", headers, JSON.stringify(countries()));
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe("TILESET_NOT_FOUND");
  });
});

test("over MAX_UPLOAD_MB: 413 by declared length and while streaming, temp file removed", async () => {
  const small = await makeTestApp({ MAX_UPLOAD_MB: "1" });
  try {
    const org = seedOrg(small.ctx, "acme");
    const h = (await seedSession(small.ctx, { orgId: org.id })).headers;
    await createTileset(small, "acme", h, { slug: "big" });
    const big = new Uint8Array(1024 * 1024 + 10).fill(0x20);
    const declared = await upload(small, "acme", "big", h, big);
    expect(declared.status).toBe(413);
    // Chunked (no Content-Length): the stream is counted and cut off.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > 3 * 1024 * 1024) return c.close();
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const streamed = await small.fetch(`/api/v1/orgs/acme/tilesets/big/versions`, { method: "POST", headers: h, body: stream, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await errorOf(streamed)).code).toBe("PAYLOAD_TOO_LARGE");
    expect(readdirSync(join(small.dataDir, "uploads"))).toEqual([]);
  } finally {
    await small.close();
  }
});

describe("processing failures and repairs", () => {
  test("truncated GeoJSON: failed, says truncated", async () => {
    const text = JSON.stringify(countries());
    const { v } = await failing(text.slice(0, Math.floor(text.length / 2)), "?filename=world.geojson");
    expect(v.error).toContain("world.geojson");
    expect(v.error).toContain("truncated");
  });

  test("an attribute nested 50,000 levels deep: failed, naming the feature and attribute, not an internal error", async () => {
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const text = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"ok":1},"geometry":{"type":"Point","coordinates":[1,2]}},{"type":"Feature","properties":{"tree":${deep}},"geometry":{"type":"Point","coordinates":[1,2]}}]}`;
    const { v } = await failing(text, "?filename=deep.geojson");
    expect(v.error).toBe("deep.geojson: feature 2: attribute 'tree' is nested too deeply (arrays or objects thousands of levels deep); flatten it");
  });

  test("coordinates nested deeper than the geometry type allows: failed, naming the feature, never a stack overflow", async () => {
    const deep = "[".repeat(50_000) + "1,2" + "]".repeat(50_000);
    const ok = `{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}`;
    const fc = (geometry: string) => `{"type":"FeatureCollection","features":[${ok},{"type":"Feature","properties":{},"geometry":${geometry}}]}`;
    const { v } = await failing(fc(`{"type":"Point","coordinates":${deep}}`), "?filename=deep.geojson");
    expect(v.error).toBe("deep.geojson: feature 2: the Point's coordinates are nested deeper than a Point's (1 level of arrays, the innermost [longitude, latitude]); fix the geometry");
    // Deep inside one position of a line, in Web Mercator (unprojected first), on an NDJSON line, as a bare geometry.
    const mercator = `{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::3857"}},"features":[${ok},{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],${deep}]}}]}`;
    expect((await failing(mercator)).v.error).toBe("upload: feature 2: the LineString's coordinates are nested deeper than a LineString's (2 levels of arrays, the innermost [longitude, latitude]); fix the geometry");
    expect((await failing(`${ok}\n{"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[${deep}]}}\n`)).v.error).toBe(
      "upload: line 2: the MultiPolygon's coordinates are nested deeper than a MultiPolygon's (4 levels of arrays, the innermost [longitude, latitude]); fix the geometry",
    );
    expect((await failing(`{"type":"Polygon","coordinates":${deep}}`)).v.error).toContain("upload: the geometry: the Polygon's coordinates are nested deeper");
    // Geometry collections inside geometry collections, 50,000 deep; and an unknown type with deep coordinates.
    const collections = '{"type":"GeometryCollection","geometries":['.repeat(50_000) + '{"type":"Point","coordinates":[1,2]}' + "]}".repeat(50_000);
    expect((await failing(fc(collections))).v.error).toBe("upload: feature 2: GeometryCollections are nested more than 16 deep; flatten them");
    expect((await failing(fc(`{"type":"Hexagon","coordinates":${deep}}`))).v.error).toContain("upload: feature 2: the Hexagon's coordinates are nested deeper than any geometry's");
    // A "crs" member of one NDJSON Feature nested as deep: refused by name too.
    const deepCrs = '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000);
    expect((await failing(`${ok}\n{"type":"Feature","crs":${deepCrs},"properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}\n`)).v.error).toBe(
      'upload: line 2: the "crs" member is nested too deeply to name a coordinate system',
    );
    // A geometry "type" nested as deep is an invalid geometry like any other: skipped with a warning.
    const slug = await fresh();
    expect((await upload(t, "acme", slug, headers, fc(`{"type":${deep},"coordinates":[1,2]}`))).status).toBe(202);
    const v2 = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v2.state).toBe("ready");
    expect(v2.warnings).toContain("upload: feature 2 skipped: geometry type (an array) is not a GeoJSON geometry type");
  }, 60_000);

  test("NDJSON with a broken line: failed, names the line", async () => {
    const lines = toNdjson(await cities(5)).split("\n");
    lines[2] = lines[2]!.slice(0, 20);
    const { v } = await failing(lines.join("\n"));
    expect(v.error).toContain("line 3");
  });

  test("a FeatureCollection whose features are not Features names the feature", async () => {
    const { v } = await failing(JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [1, 2] }, properties: {} }, { geometry: null }] }));
    expect(v.error).toContain("feature 2");
  });

  test("invalid geometries are skipped or repaired with warnings, never a crash", async () => {
    const features = [
      { type: "Feature", geometry: { type: "Point", coordinates: [10, 20] }, properties: { ok: 1 } },
      { type: "Feature", geometry: null, properties: {} },
      { type: "Feature", geometry: { type: "Point", coordinates: [500000, 6000000] }, properties: {} },
      { type: "Feature", geometry: { type: "LineString", coordinates: [[1, 1]] }, properties: {} },
      { type: "Feature", geometry: { type: "Polygon", coordinates: [[[0, 0], [5, 0], [5, 5], [0, 5]]] }, properties: { unclosed: true } },
      { type: "Feature", geometry: { type: "Point", coordinates: ["a", "b"] }, properties: {} },
      { type: "Feature", geometry: { type: "Hexagon", coordinates: [] }, properties: {} },
    ];
    const slug = await fresh();
    expect((await upload(t, "acme", slug, headers, JSON.stringify({ type: "FeatureCollection", features }))).status).toBe(202);
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.state).toBe("ready");
    expect(v.stats.features).toBe(2);
    expect(v.stats.features_skipped).toBe(5);
    const w = v.warnings.join("\n");
    expect(w).toContain("feature 2 skipped: has no geometry");
    expect(w).toContain("feature 3 skipped: position [500000, 6000000] is outside");
    expect(w).toContain("feature 4 skipped");
    expect(w).toContain("feature 5 repaired: unclosed ring closed");
    expect(w).toContain("feature 6 skipped");
    expect(w).toContain("feature 7 skipped");
    // The feature without a geometry is not counted as a broken one.
    expect(v.warnings).toContain("1 of 7 features were skipped because they have no geometry (null or empty)");
    expect(v.warnings).toContain("4 of 7 features were skipped because of invalid geometry");
  });

  test("features with a null or empty geometry are skipped for having none, not for invalid geometry", async () => {
    const point = { type: "Point", coordinates: [10, 20] };
    const geometries = [point, null, { type: "Point", coordinates: [] }, { type: "MultiPolygon", coordinates: [] }, { type: "Polygon", coordinates: [[]] }, { type: "GeometryCollection", geometries: [] }];
    const features = geometries.map((geometry, i) => ({ type: "Feature", geometry, properties: { i } }));
    const slug = await fresh();
    expect((await upload(t, "acme", slug, headers, JSON.stringify({ type: "FeatureCollection", features }))).status).toBe(202);
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.state).toBe("ready");
    expect(v.stats.features).toBe(1);
    expect(v.stats.features_skipped).toBe(5);
    expect(v.warnings).toContain("upload: feature 2 skipped: has no geometry");
    for (const n of [3, 4, 5, 6]) expect(v.warnings).toContain(`upload: feature ${n} skipped: has an empty geometry`);
    expect(v.warnings).toContain("5 of 6 features were skipped because they have no geometry (null or empty)");
    expect(v.warnings.join("\n")).not.toContain("invalid geometry");
  });

  test("a file where no feature is usable fails with the first problem", async () => {
    const { v } = await failing(JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [999, 999] }, properties: {} }] }));
    expect(v.error).toContain("none of the 1 features is usable");
    expect(v.error).toContain("feature 1");
  });

  test("CSV rows with bad coordinates are skipped with their line numbers", async () => {
    const slug = await fresh();
    await upload(t, "acme", slug, headers, "lon,lat,name\n10,20,a\nabc,20,b\n11,21,c\n,,d\n");
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.state).toBe("ready");
    expect(v.stats.features).toBe(2);
    expect(v.warnings.join("\n")).toContain("line 3 skipped");
    expect(v.warnings.join("\n")).toContain("line 5 skipped");
    // Line 5 has no coordinates at all: a row without a location, not a broken one.
    expect(v.warnings).toContain("1 of 4 features were skipped because they have no geometry (null or empty)");
    expect(v.warnings).toContain("1 of 4 features were skipped because of invalid geometry");
  });

  test("Shapefile in another projection: failed, names it and what to do", async () => {
    const pts = [{ type: "Feature" as const, geometry: { type: "Point" as const, coordinates: [500000, 6600000] }, properties: { n: 1 } }];
    const { v } = await failing(shapefileZip(pts, { prj: UTM_PRJ }));
    expect(v.error).toContain("WGS_1984_UTM_Zone_33N");
    expect(v.error).toContain("EPSG:4326");
  });

  test("zip with path traversal is refused", async () => {
    const pts = [{ type: "Feature" as const, geometry: { type: "Point" as const, coordinates: [1, 1] }, properties: { n: 1 } }];
    const { v } = await failing(shapefileZip(pts, { extra: { "../../evil.shp": new Uint8Array(10) } }));
    expect(v.error).toContain("outside the archive");
  });

  test("zip bomb is refused before inflating", async () => {
    const bomb = zipSync({ "layer.shp": new Uint8Array(20 * 1024 * 1024), "layer.dbf": new Uint8Array(10) }, { level: 9 });
    expect(bomb.length).toBeLessThan(200_000);
    const { v } = await failing(bomb);
    expect(v.error).toContain("zip bomb");
  });

  test("zip without a .shp, and a truncated zip", async () => {
    const { v } = await failing(zipSync({ "readme.txt": new TextEncoder().encode("hi") }));
    expect(v.error).toContain("no .shp");
    const pts = (await cities(50)).features;
    const zip = shapefileZip(pts);
    const { v: v2 } = await failing(zip.slice(0, Math.floor(zip.length * 0.6)));
    expect(v2.error).toMatch(/damaged|truncated/);
  });

  test("files that are not geographic data beside a Shapefile are left out with a warning; alone they fail the version", async () => {
    const pts = (await cities(5)).features;
    const text = (s: string) => new TextEncoder().encode(s);
    const sidecars = { "data/metadata.json": text(JSON.stringify({ title: "Cities", licence: "CC-BY" })), "data/codes.csv": text("code,label\n1,city\n2,town\n") };
    const slug = await fresh();
    expect((await upload(t, "acme", slug, headers, shapefileZip(pts, { extra: { "data/layer.cpg": text("UTF-8"), ...sidecars } }), "?filename=c4326.zip")).status).toBe(202);
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.error).toBeNull();
    expect(v.state).toBe("ready");
    expect(v.stats.features).toBe(5);
    expect(v.layers.map((l: any) => l.id)).toEqual([slug]);
    expect(v.warnings).toContain("c4326.zip: data/codes.csv in the zip is not usable: CSV header has no longitude/latitude columns (found: code, label); name them lon/lng/longitude/x and lat/latitude/y; left out");
    expect(v.warnings).toContain('c4326.zip: data/metadata.json in the zip is not usable: JSON without a GeoJSON "type" member (FeatureCollection, Feature or a geometry); left out');
    const { v: alone } = await failing(zipSync(sidecars), "?filename=sidecars.zip");
    expect(alone.error).toStartWith("sidecars.zip: data/codes.csv in the zip is not usable: CSV header has no longitude/latitude columns");
  });

  test("a Shapefile zipped without its .dbf is read with a warning that its attributes are missing", async () => {
    const pts = (await cities(5)).features;
    const { "data/layer.dbf": _dbf, ...withoutDbf } = unzipSync(shapefileZip(pts));
    const slug = await fresh();
    expect((await upload(t, "acme", slug, headers, zipSync(withoutDbf), "?filename=c4326.zip")).status).toBe(202);
    const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(v.state).toBe("ready");
    expect(v.stats.features).toBe(5);
    expect(v.layers[0].fields).toEqual({});
    expect(v.warnings).toContain("c4326.zip: data/layer.dbf is missing, so the features of data/layer.shp have no attributes; zip the .dbf with the .shp");
  });

  test("truncated FlatGeobuf", async () => {
    const fgb = flatgeobuf(await cities(300));
    const { v } = await failing(fgb.slice(0, Math.floor(fgb.length / 2)));
    expect(v.error).toMatch(/FlatGeobuf .*(damaged|truncated)/);
  });

  test("truncated and damaged MBTiles", async () => {
    const path = join(t.dataDir, "keep-in.mbtiles");
    writeMbtiles(path, vectorTiles(countries(), "c", 3), { format: "pbf" });
    const bytes = await Bun.file(path).bytes();
    const { v } = await failing(bytes.slice(0, Math.floor(bytes.length / 2)));
    expect(v.error).toMatch(/damaged|truncated|malformed/);
    const empty = join(t.dataDir, "keep-empty.mbtiles");
    writeMbtiles(empty, [], { format: "pbf" });
    const { v: v2 } = await failing(Bun.file(empty));
    expect(v2.error).toContain("no tiles");
    const wrong = join(t.dataDir, "keep-wrong.mbtiles");
    writeMbtiles(wrong, [[0, 0, 0, PNG_1x1]], { format: "pbf" });
    const { v: v3 } = await failing(Bun.file(wrong));
    expect(v3.error).toContain("png");
  });

  test("MBTiles whose tiles are not what the archive declares: garbage, gzip of garbage, a gzip bomb, images", async () => {
    const good = vectorTiles(countries(), "c", 2);
    const garbage = new TextEncoder().encode("\x1a this is not a vector tile at all, just bytes");
    const gzGarbage = Bun.gzipSync(crypto.getRandomValues(new Uint8Array(300)));
    const bomb = Bun.gzipSync(new Uint8Array(40 * 1024 * 1024));
    for (const [name, bad, expected] of [
      ["garbage", garbage, /2\/\d\/\d: not a Mapbox Vector Tile/],
      ["gz-garbage", gzGarbage, /not a Mapbox Vector Tile/],
      ["bomb", bomb, /more than 32 MiB/],
    ] as const) {
      const path = join(t.dataDir, `keep-${name}.mbtiles`);
      // zooms 0-1 fine and the first tile of zoom 2 too: the check must look past the first tile it meets
      const firstAtZ2 = good.findIndex(([z]) => z === 2);
      const tiles = good.map(([z, x, y, data], i) => [z, x, y, z === 2 && i !== firstAtZ2 ? bad : data] as [number, number, number, Uint8Array]);
      writeMbtiles(path, tiles, { format: "pbf", minzoom: "0", maxzoom: "2" });
      const { v } = await failing(Bun.file(path));
      expect(v.error).toContain("sampled tiles do not hold vector tile (MVT) data");
      expect(v.error).toMatch(expected);
    }
    const jpeg = join(t.dataDir, "keep-jpeg.mbtiles");
    writeMbtiles(jpeg, [[0, 0, 0, new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2])], [1, 0, 0, PNG_1x1]], { format: "jpg", minzoom: "0", maxzoom: "1" });
    const { v } = await failing(Bun.file(jpeg));
    expect(v.error).toContain("1/0/0: not a JPEG image");
  }, 60_000);

  test("truncated PMTiles", async () => {
    const archive = pmtiles(vectorTiles(countries(), "c", 2), { tileType: 1, tileCompression: 2, metadata: {}, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 2 });
    const { v } = await failing(archive.slice(0, archive.length - 1000));
    expect(v.error).toContain("truncated");
  });

  test("PMTiles whose header declares another tile type or compression than its tiles hold: failed, naming the tiles", async () => {
    const opts = { tileType: 1, tileCompression: 2, metadata: {}, bounds: [-180, -85, 180, 85] as [number, number, number, number], minzoom: 0, maxzoom: 2 };
    // Valid gzip MVT, with the header's tile type (byte 99) patched to say PNG: served as image/png before.
    const mvtAsPng = pmtiles(vectorTiles(countries(), "c", 2), opts);
    mvtAsPng[99] = 2;
    const { v } = await failing(mvtAsPng, "?filename=world.pmtiles");
    expect(v.error).toStartWith("world.pmtiles: ");
    expect(v.error).toContain("sampled tiles do not hold PNG data as the archive declares (0/0/0: not a PNG image");
    // PNG tiles declared MVT (no compression): every zoom is looked at, past the first tile.
    const png = pmtiles([[0, 0, 0, PNG_1x1], [1, 0, 0, PNG_1x1], [1, 1, 1, PNG_1x1]], { ...opts, tileType: 2, tileCompression: 1, maxzoom: 1 });
    png[99] = 1;
    const { v: v2 } = await failing(png);
    expect(v2.error).toContain("3 of 3 sampled tiles do not hold vector tile (MVT) data");
    expect(v2.error).toContain("1/1/1: not a Mapbox Vector Tile");
    // Gzip MVT whose header says the tiles are not compressed: clients would get gzip bytes unannounced.
    const plain = pmtiles(vectorTiles(countries(), "c", 1), { ...opts, maxzoom: 1 });
    plain[98] = 1;
    const { v: v3 } = await failing(plain);
    expect(v3.error).toContain("gzip data, though the archive declares no tile compression");
  });
});

test("failed versions keep the data dir clean and the next upload works", async () => {
  const slug = await fresh();
  await upload(t, "acme", slug, headers, '{"type":"FeatureCollection","features":[');
  expect(((await waitForVersion(t, "acme", slug, 1, headers)) as any).state).toBe("failed");
  await upload(t, "acme", slug, headers, JSON.stringify(countries()));
  const v2 = (await waitForVersion(t, "acme", slug, 2, headers)) as any;
  expect(v2.state).toBe("ready");
  const tilesetDir = readdirSync(join(t.dataDir, "tilesets")).map((d) => readdirSync(join(t.dataDir, "tilesets", d))).flat();
  expect(tilesetDir.some((f) => f.includes(".tmp"))).toBe(false);
  expect(existsSync(join(t.dataDir, "uploads"))).toBe(true);
});
