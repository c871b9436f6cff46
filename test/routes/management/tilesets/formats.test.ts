// Every input format, uploaded over HTTP the way a user would (raw body or multipart), processed into
// a ready version whose tiles decode to the uploaded features.
import { encodePng } from "../../../../src/sprites/png";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { join } from "node:path";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { zipSync } from "fflate";
import { tempDir, type TestApp } from "../../../support/app";
import { acmeApp,
  PNG_1x1,
  cities,
  countries,
  createTileset,
  flatgeobuf,
  pmtiles,
  shapefileZip,
  toCsv,
  toNdjson,
  upload,
  vectorTiles,
  waitForVersion,
  writeMbtiles,
} from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
});
afterAll(() => t.close());

/** Creates a tileset, uploads `body`, waits, publishes; returns the ready version. */
async function importInto(body: BodyInit, query = "", extraHeaders: Record<string, string> = {}) {
  const slug = `ts-${++counter}`;
  await createTileset(t, "acme", headers, { slug });
  const res = await upload(t, "acme", slug, { ...headers, ...extraHeaders }, body, query);
  const accepted = (await res.json()) as { version: number; state: string };
  expect(res.status).toBe(202);
  expect(accepted.state).toBe("queued");
  const v = (await waitForVersion(t, "acme", slug, accepted.version, headers)) as any;
  expect(v.error).toBeNull();
  expect(v.state).toBe("ready");
  return { slug, v };
}

async function decodedTile(slug: string, z: number, x: number, y: number) {
  const res = await t.fetch(`/tiles/v1/acme/${slug}@1/${z}/${x}/${y}.mvt`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-encoding")).toBeNull();
  return new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())));
}

describe("source data becomes vector tiles", () => {
  test("GeoJSON FeatureCollection (raw body): polygons, field types, zooms from the extent", async () => {
    const { slug, v } = await importInto(JSON.stringify(countries()));
    expect(v.source_format).toBe("geojson");
    expect(v.archive_format).toBe("mbtiles");
    expect(v.format).toBe("pbf");
    expect(v.layers).toEqual([{ id: slug, fields: { name: "String" }, minzoom: 0, maxzoom: 6 }]);
    expect(v.minzoom).toBe(0);
    expect(v.maxzoom).toBe(6);
    expect(v.stats.features).toBe(177);
    expect(v.stats.tiles).toBeGreaterThan(100);
    expect(v.bounds[0]).toBe(-180);
    expect(v.bounds[2]).toBe(180);
    const tile = await decodedTile(slug, 0, 0, 0);
    const layer = tile.layers[slug]!;
    expect(layer.length).toBeGreaterThan(150);
    const names = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.name);
    expect(names).toContain("Brazil");
    expect(layer.feature(0).type).toBe(3);
  });

  test("a single GeoJSON Feature, and the recipe from query parameters", async () => {
    const brazil = countries().features.find((f) => f.properties?.name === "Brazil")!;
    const { slug, v } = await importInto(JSON.stringify({ ...brazil, properties: { name: "Brazil", keep: 1, drop: "x" } }), "?layer=land&minzoom=2&maxzoom=5&exclude=drop");
    expect(v.layers).toEqual([{ id: "land", fields: { name: "String", keep: "Number" }, minzoom: 2, maxzoom: 5 }]);
    expect(v.recipe).toMatchObject({ layer: "land", minzoom: 2, maxzoom: 5, exclude: ["drop"] });
    // Brazil at z2: tile 1/2 holds it; z0 and z1 are outside the zoom range.
    const tile = await decodedTile(slug, 2, 1, 2);
    expect(tile.layers.land!.feature(0).properties).toEqual({ name: "Brazil", keep: 1 });
    expect((await t.fetch(`/tiles/v1/acme/${slug}@1/1/0/1.mvt`, { headers })).status).toBe(404);
  });

  test("newline-delimited GeoJSON", async () => {
    const fc = await cities(300);
    // point_spacing=0: no density thinning, so the world tile holds every city.
    const { slug, v } = await importInto(toNdjson(fc), "?point_spacing=0");
    expect(v.source_format).toBe("ndjson");
    expect(v.stats.features).toBe(300);
    expect(v.layers[0].fields).toEqual({ name: "String", country: "String", population: "Number" });
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    expect(layer.length).toBe(300);
  });

  test("CSV with longitude/latitude columns, quoted fields and CRLF line ends", async () => {
    const fc = await cities(200);
    fc.features[0]!.properties!.name = 'Quoted, "name"';
    const { slug, v } = await importInto(toCsv(fc));
    expect(v.source_format).toBe("csv");
    expect(v.stats.features).toBe(200);
    expect(v.layers[0].fields).toEqual({ name: "String", population: "Number" });
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const names = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.name);
    expect(names).toContain('Quoted, "name"');
  });

  test("CSV saved as Latin-1 by a spreadsheet is read as Windows-1252 with a warning; UTF-8 lines stay UTF-8", async () => {
    // Line 2 is Latin-1 (ü is the byte 0xFC), line 3 UTF-8: each line is decoded as what it is.
    const bytes = new Uint8Array([...new TextEncoder().encode("lon,lat,name\n8.54,47.37,Z"), 0xfc, ...new TextEncoder().encode("rich\n7.45,46.95,Bern – Bärn\n")]);
    const { slug, v } = await importInto(bytes);
    expect(v.warnings).toContain("upload: line 2 is not UTF-8: read as Windows-1252 (Latin-1); if letters look wrong, save the file as UTF-8 and upload it again");
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const names = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.name).sort();
    expect(names).toEqual(["Bern – Bärn", "Zürich"]);
    const clean = await importInto(new TextEncoder().encode("lon,lat,name\n8.54,47.37,Zürich\n"));
    expect(clean.v.warnings).toEqual([]);
  });

  test("several Latin-1 CSVs in one upload: each file's warning names it and counts its lines", async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const one = new Uint8Array([...enc("lon,lat,name\n8.54,47.37,Z"), 0xfc, ...enc("rich\n")]);
    const two = new Uint8Array([...enc("lon,lat,name\n7.45,46.95,Bern\n8.54,47.37,Z"), 0xfc, ...enc("rich\n6.14,46.2,Gen"), 0xe8, ...enc("ve\n")]);
    const form = new FormData();
    form.append("file", new Blob([one]), "one.csv");
    form.append("file", new Blob([two]), "two.csv");
    form.append("file", new Blob([enc("lon,lat,name\n7,46,Sion\n")]), "clean.csv");
    const { v } = await importInto(form);
    const notUtf8 = v.warnings.filter((w: string) => w.includes("not UTF-8"));
    expect(notUtf8.sort()).toEqual([
      "one.csv: line 2 is not UTF-8: read as Windows-1252 (Latin-1); if letters look wrong, save the file as UTF-8 and upload it again",
      "two.csv: 2 lines (the first: line 3) are not UTF-8: read as Windows-1252 (Latin-1); if letters look wrong, save the file as UTF-8 and upload it again",
    ]);
  });

  test("CSV rows with more fields than the header are told in a warning; trailing empty fields are not", async () => {
    const { v } = await importInto(new TextEncoder().encode("lon,lat,name\n8.54,47.37,Zurich\n7.45,46.95,Bern, Switzerland\n6.14,46.2,Genève,CH,x\n"));
    expect(v.stats.features).toBe(3);
    expect(v.warnings).toContain(
      'upload: 2 rows have more fields than the header\'s 3 (first: line 3, with 4); the extra fields were left out. A value holding the delimiter (",") must be in double quotes',
    );
    const trailing = await importInto(new TextEncoder().encode("lon;lat;name;\n8,54;47,37;Zurich;\n7,45;46,95;Bern;;\n"));
    expect(trailing.v.warnings).toEqual([]);
  });

  test("CSV decimals of 17 or more characters are numbers, as ogr2ogr writes them; integers beyond 2^53 stay text", async () => {
    const csv = "lon,lat,name,ratio,id\n7.1,46.1,a,0.25,1\n7.2,46.2,b,0.333333333333333,9007199254740993\n7.3,46.3,c,-0.33333333333333,2\n7.4,46.4,d,0.30000000000000004,3\n7.5,46.5,e,1234.5678901234567,4\n7.6,46.6,f,0.9,5\n";
    const { slug, v } = await importInto(new TextEncoder().encode(csv), "?point_spacing=0");
    expect(v.layers[0].fields.ratio).toBe("Number");
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const props = Object.fromEntries(Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties).map((p) => [p.name, p]));
    expect(props.b!.ratio).toBe(0.333333333333333);
    expect(props.c!.ratio).toBe(-0.33333333333333);
    expect(props.d!.ratio).toBe(0.30000000000000004);
    expect(props.e!.ratio).toBe(1234.5678901234567);
    // 9007199254740993 is not a double: as a number it would come back as ...992.
    expect(props.b!.id).toBe("9007199254740993");
    expect(props.a!.id).toBe(1);
    const filter = encodeURIComponent(JSON.stringify([">=", "ratio", 0.3]));
    const filtered = await importInto(new TextEncoder().encode(csv), `?point_spacing=0&filter=${filter}`);
    expect(filtered.v.stats.features).toBe(4);
  });

  test("CSV with x/y and lon/lat columns is placed by lon/lat, whichever come first; x/y stay attributes", async () => {
    // LV95 metres in x/y would be out of range as degrees.
    const lv95 = await importInto(new TextEncoder().encode("x,y,lon,lat,name\n2600000,1200000,7.4474,46.948,Bern\n"));
    expect(lv95.v.bounds[0]).toBeCloseTo(7.4474, 4);
    expect(lv95.v.bounds[1]).toBeCloseTo(46.948, 4);
    expect((await decodedTile(lv95.slug, 0, 0, 0)).layers[lv95.slug]!.feature(0).properties).toEqual({ x: 2600000, y: 1200000, name: "Bern" });
    // In range as degrees, x/y would place the point silently elsewhere; names in any case.
    const inRange = await importInto(new TextEncoder().encode("X,Y,Latitude,LONGITUDE,name\n1,2,46.948,7.4474,Bern\n"));
    expect(inRange.v.bounds[0]).toBeCloseTo(7.4474, 4);
    expect(inRange.v.bounds[1]).toBeCloseTo(46.948, 4);
  });

  test("a semicolon CSV with decimal commas, as European spreadsheets export it; commas in a comma CSV stay text", async () => {
    const { slug, v } = await importInto(new TextEncoder().encode("Latitude;Longitude;Name;Wert\n46,95;7,45;Bern;1,5\n47,37;8,54;Zürich;-2\n"));
    expect(v.stats.features).toBe(2);
    expect(v.stats.features_skipped).toBe(0);
    expect(v.bounds[0]).toBeCloseTo(7.45, 5);
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const values = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.Wert).sort();
    expect(values).toEqual([-2, 1.5]);
    const comma = await importInto(new TextEncoder().encode('lon,lat,code\n7.45,46.95,"1,5"\n'));
    expect((await decodedTile(comma.slug, 0, 0, 0)).layers[comma.slug]!.feature(0).properties.code).toBe("1,5");
  });

  test("layer names keep letters of any script: from a file name, and as given", async () => {
    // A zip makes one layer per file, named after it.
    const csv = new TextEncoder().encode("lon,lat\n7.45,46.95\n");
    const zip = zipSync({ "Länder 2024.csv": csv, "Städte.csv": csv }) as Uint8Array<ArrayBuffer>;
    expect((await importInto(zip)).v.layers.map((l: { id: string }) => l.id).sort()).toEqual(["Länder_2024", "Städte"]);
    expect((await importInto(new TextEncoder().encode("lon,lat\n7.45,46.95\n"), `?layer=${encodeURIComponent("Straßen")}`)).v.layers[0].id).toBe("Straßen");
    const bad = await upload(t, "acme", "ts-1", headers, "lon,lat\n7,46\n", `?layer=${encodeURIComponent("9 lives")}`);
    expect(bad.status).toBe(400);
  });

  test("CSV spellings lat/lng with semicolons, multipart upload with recipe fields", async () => {
    const csv = "name;lat;lng\nOslo;59.91;10.75\nBergen;60.39;5.32\n";
    const form = new FormData();
    form.append("file", new Blob([csv], { type: "text/csv" }), "norway.csv");
    form.append("layer", "towns");
    form.append("maxzoom", "8");
    const { slug, v } = await importInto(form);
    expect(v.source_format).toBe("csv");
    expect(v.recipe).toMatchObject({ layer: "towns", maxzoom: 8, filename: "norway.csv" });
    expect(v.layers[0].id).toBe("towns");
    expect(v.stats.features).toBe(2);
    const layer = (await decodedTile(slug, 0, 0, 0)).layers.towns!;
    expect(layer.length).toBe(2);
  });

  test("zipped Shapefile (polygons with holes, WGS84 .prj)", async () => {
    const some = countries().features.filter((f) => ["Brazil", "Italy", "South Africa", "Indonesia"].includes(String(f.properties?.name)));
    const { slug, v } = await importInto(shapefileZip(some));
    expect(v.source_format).toBe("shapefile");
    expect(v.stats.features).toBe(4);
    expect(v.layers[0].fields).toEqual({ name: "String" });
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const names = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.name).sort();
    expect(names).toEqual(["Brazil", "Indonesia", "Italy", "South Africa"]);
    // South Africa has Lesotho as a hole: one polygon of an outer ring and a hole, not two filled polygons.
    const za = Array.from({ length: layer.length }, (_, i) => layer.feature(i)).find((f) => f.properties.name === "South Africa")!;
    const geometry = za.toGeoJSON(0, 0, 0).geometry as { type: string; coordinates: unknown[] };
    expect(geometry.type).toBe("Polygon");
    expect(geometry.coordinates).toHaveLength(2);
  });

  test("zipped Shapefile dates: YYYYMMDD becomes YYYY-MM-DD; an empty date (blank, or zeros as GDAL writes it) is left out", async () => {
    const pts = ["20200131", "00000000", ""].map((opened, i) => ({ type: "Feature" as const, properties: { name: `p${i}`, opened }, geometry: { type: "Point" as const, coordinates: [i * 40, 0] } }));
    const { slug } = await importInto(shapefileZip(pts, { dates: ["opened"] }));
    const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
    const got = Object.fromEntries(Array.from({ length: layer.length }, (_, i) => [layer.feature(i).properties.name, layer.feature(i).properties.opened]));
    expect(got).toEqual({ p0: "2020-01-31", p1: undefined, p2: undefined });
  });

  test("zipped Shapefile of points in Web Mercator is unprojected", async () => {
    const R = 6378137;
    const merc = (lon: number, lat: number) => [(lon * Math.PI * R) / 180, R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))];
    const pts = [
      { type: "Feature" as const, geometry: { type: "Point" as const, coordinates: merc(10.75, 59.91) }, properties: { name: "Oslo", pop: 700000 } },
      { type: "Feature" as const, geometry: { type: "Point" as const, coordinates: merc(-74, 40.7) }, properties: { name: "New York", pop: 8000000 } },
    ];
    const prj = 'PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]]],PROJECTION["Mercator_Auxiliary_Sphere"]]';
    const { v } = await importInto(shapefileZip(pts, { prj }));
    expect(v.stats.features).toBe(2);
    expect(v.bounds[0]).toBeCloseTo(-74, 5);
    expect(v.bounds[3]).toBeCloseTo(59.91, 5);
    expect(v.layers[0].fields).toEqual({ name: "String", pop: "Number" });
  });

  describe("zipped Shapefile text in the code page its files name", () => {
    const places = ["São Paulo", "Zürich", "Москва"].map((name, i) => ({ type: "Feature" as const, properties: { name }, geometry: { type: "Point" as const, coordinates: [i * 40, 0] } }));
    // Latin-1 and Windows-1251 writers, enough for these names: one byte a letter.
    const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
    const cp1251 = (s: string) => Uint8Array.from(s, (c) => (c >= "А" && c <= "я" ? c.charCodeAt(0) - 0x410 + 0xc0 : c.charCodeAt(0)));
    const names = async (body: Uint8Array<ArrayBuffer>) => {
      const { slug, v } = await importInto(body);
      const layer = (await decodedTile(slug, 0, 0, 0)).layers[slug]!;
      return { names: Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.name).sort(), warnings: v.warnings.join("\n") };
    };

    test("no .cpg: the .dbf header's code page byte (87, ANSI, as ogr2ogr writes it) is honoured", async () => {
      const got = await names(shapefileZip(places.slice(0, 2), { encode: latin1, ldid: 0x57 }));
      expect(got.names).toEqual(["São Paulo", "Zürich"]);
      expect(got.warnings).not.toContain("UTF-8");
    });

    test("a .cpg wins over the header's byte: 1251 and UTF-8", async () => {
      const cyrillic = await names(shapefileZip(places.slice(2), { encode: cp1251, ldid: 0x57, extra: { "data/layer.cpg": new TextEncoder().encode("1251\n") } }));
      expect(cyrillic.names).toEqual(["Москва"]);
      const utf8 = await names(shapefileZip(places, { ldid: 0x57, extra: { "data/layer.cpg": new TextEncoder().encode("UTF-8") } }));
      expect(utf8.names).toEqual(["Zürich", "São Paulo", "Москва"].sort());
    });

    test("nothing names a code page: UTF-8 stays UTF-8, other text is read as Windows-1252 with a warning", async () => {
      const utf8 = await names(shapefileZip(places));
      expect(utf8.names).toEqual(["Zürich", "São Paulo", "Москва"].sort());
      expect(utf8.warnings).toBe("");
      const legacy = await names(shapefileZip(places.slice(0, 2), { encode: latin1 }));
      expect(legacy.names).toEqual(["São Paulo", "Zürich"]);
      expect(legacy.warnings).toContain("layer.dbf): record 1 holds the first text that is not UTF-8, and neither a .cpg file nor the .dbf header names their code page: read as Windows-1252 (Latin-1)");
    });

    test("a .cpg naming a code page that cannot be read says so", async () => {
      const got = await names(shapefileZip(places.slice(0, 1), { extra: { "data/layer.cpg": new TextEncoder().encode("OEM") } }));
      expect(got.names).toEqual(["São Paulo"]);
      expect(got.warnings).toContain("the .cpg names the code page 'OEM', which cannot be read here");
    });

    test.skipIf(!Bun.which("ogr2ogr"))("a Shapefile ogr2ogr made from a UTF-8 CSV (Latin-1 text, no .cpg)", async () => {
      const dir = tempDir();
      writeFileSync(join(dir, "cities.csv"), "name,lon,lat\nSão Paulo,-46.63,-23.55\nZürich,8.54,47.37\n");
      const ogr = Bun.spawnSync(["ogr2ogr", "-f", "ESRI Shapefile", "-s_srs", "EPSG:4326", "-t_srs", "EPSG:3857", "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "out.shp", "cities.csv"], { cwd: dir });
      expect(ogr.stderr.toString()).toBe("");
      expect(existsSync(join(dir, "out.cpg"))).toBe(false);
      const files = Object.fromEntries(["shp", "shx", "dbf", "prj"].map((ext) => [`out.${ext}`, new Uint8Array(readFileSync(join(dir, `out.${ext}`)))]));
      const got = await names(zipSync(files) as Uint8Array<ArrayBuffer>);
      expect(got.names).toEqual(["São Paulo", "Zürich"]);
      expect(got.warnings).toBe("");
    });
  });

  test("FlatGeobuf", async () => {
    const fc = await cities(250);
    const { slug, v } = await importInto(flatgeobuf(fc), "?point_spacing=0");
    expect(v.source_format).toBe("flatgeobuf");
    expect(v.stats.features).toBe(250);
    expect((await decodedTile(slug, 0, 0, 0)).layers[slug]!.length).toBe(250);
  });
});

describe("archives are validated and served as they are", () => {
  test("vector MBTiles: stored gzip tiles pass through byte for byte", async () => {
    const path = join(t.dataDir, "in.mbtiles");
    const tiles = vectorTiles(countries(), "countries", 2);
    writeMbtiles(path, tiles, {
      name: "World",
      format: "pbf",
      minzoom: "0",
      maxzoom: "2",
      bounds: "-180,-85,180,85",
      center: "0,0,1",
      json: JSON.stringify({ vector_layers: [{ id: "countries", fields: { name: "String" } }] }),
    });
    const { slug, v } = await importInto(Bun.file(path));
    expect(v.source_format).toBe("mbtiles");
    expect(v.archive_format).toBe("mbtiles");
    expect(v.layers).toEqual([{ id: "countries", fields: { name: "String" } }]);
    expect(v.stats.tiles).toBe(tiles.length);
    const [z, x, y, data] = tiles.find(([z]) => z === 2)!;
    const res = await t.fetch(`/tiles/v1/acme/${slug}@1/${z}/${x}/${y}.pbf`, { headers: { ...headers, "accept-encoding": "gzip, br" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(data);
  });

  test("raster MBTiles (png)", async () => {
    const path = join(t.dataDir, "raster.mbtiles");
    writeMbtiles(path, [[0, 0, 0, PNG_1x1], [1, 0, 0, PNG_1x1]], { name: "Raster", format: "png", minzoom: "0", maxzoom: "1" });
    const { slug, v } = await importInto(Bun.file(path));
    expect(v.format).toBe("png");
    expect(v.layers).toEqual([]);
    const res = await t.fetch(`/tiles/v1/acme/${slug}@1/1/0/0.png`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG_1x1);
    expect((await t.fetch(`/tiles/v1/acme/${slug}@1/1/0/0.mvt`, { headers })).status).toBe(404);
    const tj = (await (await t.fetch(`/tiles/v1/acme/${slug}@1.json`, { headers })).json()) as any;
    expect(tj.tiles[0]).toEndWith(`/tiles/v1/acme/${slug}@1/{z}/{x}/{y}.png`);
    expect(tj.vector_layers).toBeUndefined();
    // The tiles' own size (1 px here), so MapLibre does not take them for its default 512.
    expect(tj.tileSize).toBe(1);
  });

  test("a raster archive's TileJSON gives its tiles' size, as GDAL writes them (256 px)", async () => {
    const path = join(t.dataDir, "raster256.mbtiles");
    const tile = encodePng({ width: 256, height: 256, data: new Uint8Array(256 * 256 * 4).fill(200) });
    writeMbtiles(path, [[0, 0, 0, tile]], { name: "Hillshade", format: "png", minzoom: "0", maxzoom: "0" });
    const { slug } = await importInto(Bun.file(path));
    expect(((await (await t.fetch(`/tiles/v1/acme/${slug}@1.json`, { headers })).json()) as any).tileSize).toBe(256);
  });

  test("vector PMTiles (gzip tiles), served straight from the file", async () => {
    const tiles = vectorTiles(countries(), "countries", 2);
    const archive = pmtiles(tiles, {
      tileType: 1,
      tileCompression: 2,
      metadata: { name: "World", attribution: "Natural Earth", vector_layers: [{ id: "countries", fields: { name: "String" } }] },
      bounds: [-180, -85, 180, 85],
      minzoom: 0,
      maxzoom: 2,
    });
    const { slug, v } = await importInto(archive);
    expect(v.source_format).toBe("pmtiles");
    expect(v.archive_format).toBe("pmtiles");
    expect(v.layers).toEqual([{ id: "countries", fields: { name: "String" } }]);
    for (const [z, x, y, data] of tiles.filter((_, i) => i % 3 === 0)) {
      const res = await t.fetch(`/tiles/v1/acme/${slug}@1/${z}/${x}/${y}.mvt`, { headers: { ...headers, "accept-encoding": "gzip" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe("gzip");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(data);
    }
    const plain = await t.fetch(`/tiles/v1/acme/${slug}@1/0/0/0.mvt`, { headers });
    expect(new Uint8Array(await plain.arrayBuffer())).toEqual(Bun.gunzipSync(tiles[0]![3] as Uint8Array<ArrayBuffer>));
  });

  test("raster PMTiles (png, uncompressed)", async () => {
    const archive = pmtiles([[0, 0, 0, PNG_1x1]], { tileType: 2, tileCompression: 1, metadata: {}, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 0 });
    const { slug, v } = await importInto(archive);
    expect(v.format).toBe("png");
    const res = await t.fetch(`/tiles/v1/acme/${slug}@1/0/0/0.png`, { headers });
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG_1x1);
  });
});
