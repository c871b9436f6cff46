// The static-image URL grammar and the overlays, parsed without rendering: what is accepted, what it
// means, and the 400 (naming the parameter) for everything else.
import { describe, expect, test } from "bun:test";
import { AppError } from "../../../src/errors";
import { parseStaticRequest } from "../../../src/read/render/static-request";
import { MAX_MARKERS, MAX_OVERLAY_CHARS, overlayPositions, parseOverlays } from "../../../src/read/render/overlays";
import { decodePolyline } from "../../../src/polyline";
import { fitPositions, tileView, toWorld } from "../../../src/read/render/viewport";

const parse = (path: string, query = "") => parseStaticRequest(path, new URLSearchParams(query));

function rejects(fn: () => unknown, mentions: string) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).message).toContain(mentions);
    return;
  }
  throw new Error(`expected a 400 mentioning '${mentions}'`);
}

describe("position, size and format", () => {
  test("center, zoom, bearing, @2x and every format", () => {
    expect(parse("acme/streets/-0.1,51.5,10/600x400.png")).toMatchObject({
      owner: "acme",
      style: "streets",
      position: { kind: "center", lon: -0.1, lat: 51.5, zoom: 10, bearing: 0 },
      width: 600,
      height: 400,
      pixelRatio: 1,
      format: "png",
      overlays: [],
      attribution: true,
      logo: true,
    });
    expect(parse("acme/streets@3/8.5,47.3,12.5,45/300x200@2x.jpg")).toMatchObject({ style: "streets@3", position: { zoom: 12.5, bearing: 45 }, pixelRatio: 2, format: "jpg" });
    expect(parse("acme/s/0,0,0/1x1.webp").format).toBe("webp");
    expect(parse("acme/s/0,0,22,360/1280x1280.jpeg").format).toBe("jpg");
    expect(parse("acme/s/0,0,1/10x10.png", "attribution=false&logo=false")).toMatchObject({ attribution: false, logo: false });
  });

  test("out-of-range and malformed values name their parameter", () => {
    rejects(() => parse("acme/s/181,0,1/10x10.png"), "lon");
    rejects(() => parse("acme/s/0,86,1/10x10.png"), "lat");
    rejects(() => parse("acme/s/0,0,23/10x10.png"), "zoom");
    rejects(() => parse("acme/s/0,0,-1/10x10.png"), "zoom");
    rejects(() => parse("acme/s/0,0,1,361/10x10.png"), "bearing");
    rejects(() => parse("acme/s/0,0/10x10.png"), "position");
    rejects(() => parse("acme/s/a,b,c/10x10.png"), "position");
    rejects(() => parse("acme/s/0,0,1/0x10.png"), "width");
    rejects(() => parse("acme/s/0,0,1/1281x10.png"), "width");
    rejects(() => parse("acme/s/0,0,1/10x1281.png"), "height");
    rejects(() => parse("acme/s/0,0,1/10x10@3x.png"), "size");
    rejects(() => parse("acme/s/0,0,1/10x10.gif"), "format");
    rejects(() => parse("acme/s/0,0,1/10x10"), "size");
    rejects(() => parse("acme/s/0,0,1"), "path");
    rejects(() => parse("acme/s/a/b/0,0,1/10x10.png"), "path");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "attribution=no"), "attribution");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "logo=1"), "logo");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "logo=false&logo=true"), "logo");
    rejects(() => parse("acme/s/%E0%A4%A/0,0,1/10x10.png"), "overlay");
  });

  test("Mapbox's five-number position: pitch 0 is accepted, any other pitch is a 400 that says it is not supported", () => {
    expect(parse("acme/s/8.54,47.37,9,0,0/300x200.png").position).toEqual({ kind: "center", lon: 8.54, lat: 47.37, zoom: 9, bearing: 0 });
    expect(parse("acme/s/8.54,47.37,9,30,0/300x200.png").position).toMatchObject({ bearing: 30 });
    rejects(() => parse("acme/s/8.54,47.37,9,0,45/300x200.png"), "pitch 45 is not supported");
    rejects(() => parse("acme/s/8.54,47.37,9,0,0,0/300x200.png"), "position");
  });

  test("Mapbox's bbox position, brackets plain or encoded; padding applies to it", () => {
    const bbox = { kind: "bbox" as const, minLon: 5.9, minLat: 45.8, maxLon: 10.5, maxLat: 47.8 };
    expect(parse("acme/s/[5.9,45.8,10.5,47.8]/300x200.png").position).toEqual(bbox);
    expect(parse("acme/s/%5B5.9,45.8,10.5,47.8%5D/300x200.png", "padding=10").position).toEqual(bbox);
    expect(parse("acme/s/[5.9,45.8,10.5,47.8]/300x200.png", "padding=10").padding).toEqual({ top: 10, right: 10, bottom: 10, left: 10 });
    rejects(() => parse("acme/s/[5.9,45.8,10.5]/300x200.png"), "bbox");
    rejects(() => parse("acme/s/[5.9,45.8,10.5,47.8/300x200.png"), "bbox");
    rejects(() => parse("acme/s/[10.5,45.8,5.9,47.8]/300x200.png"), "minLon < maxLon");
    rejects(() => parse("acme/s/[5.9,45.8,10.5,88]/300x200.png"), "bbox latitude 88");
    rejects(() => parse("acme/s/[5.9,45.8,190,47]/300x200.png"), "bbox longitude 190");
  });

  test("before_layer names the layer; addlayer, setfilter and layer_id are refused by name; other parameters are ignored", () => {
    expect(parse("acme/s/0,0,1/10x10.png", "before_layer=roads").beforeLayer).toBe("roads");
    expect(parse("acme/s/0,0,1/10x10.png").beforeLayer).toBeNull();
    rejects(() => parse("acme/s/0,0,1/10x10.png", "before_layer="), "before_layer");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "before_layer=a&before_layer=b"), "before_layer");
    rejects(() => parse("acme/s/0,0,1/10x10.png", `addlayer=${encodeURIComponent('{"id":"x","type":"line"}')}`), "addlayer is not supported");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "setfilter=%5B%5D&layer_id=roads"), "setfilter is not supported");
    rejects(() => parse("acme/s/0,0,1/10x10.png", "layer_id=roads"), "layer_id is not supported");
    expect(parse("acme/s/0,0,1/10x10.png", "cachebuster=123&access_token=x").position).toMatchObject({ kind: "center" });
  });

  test("auto needs overlays; padding only with auto and inside the image", () => {
    expect(parse("acme/s/pin-s(1,2)/auto/100x100.png", "padding=10,20")).toMatchObject({ position: { kind: "auto" }, padding: { top: 10, right: 20, bottom: 10, left: 20 } });
    expect(parse("acme/s/auto/100x100.png", "overlay=pin-s(1,2)&padding=1,2,3,4").padding).toEqual({ top: 1, right: 2, bottom: 3, left: 4 });
    rejects(() => parse("acme/s/auto/100x100.png"), "auto");
    rejects(() => parse("acme/s/0,0,1/100x100.png", "padding=5"), "padding");
    rejects(() => parse("acme/s/auto/100x100.png", "overlay=pin-s(1,2)&padding=50"), "padding");
    rejects(() => parse("acme/s/auto/100x100.png", "overlay=pin-s(1,2)&padding=1,2,3,4,5"), "padding");
    rejects(() => parse("acme/s/auto/100x100.png", "overlay=pin-s(1,2)&padding=-1"), "padding");
  });
});

describe("overlays", () => {
  test("pins: size, label or icon, colour; from the path and the query together", () => {
    const req = parse(`acme/s/${encodeURIComponent("pin-s(1,2),pin-l-a+0f0(3,4)")}/0,0,1/10x10.png`, `overlay=${encodeURIComponent("pin-l-cafe+abc(5,6)")}`);
    expect(req.overlays.map((f) => [f.geometry, f.properties.radius, f.properties.color, f.properties.label, f.properties.icon])).toEqual([
      [{ type: "Point", coordinates: [1, 2] }, 6, "#e55e5e", "", ""],
      [{ type: "Point", coordinates: [3, 4] }, 9, "#0f0", "A", ""],
      [{ type: "Point", coordinates: [5, 6] }, 9, "#abc", "", "cafe"],
    ]);
  });

  test("paths: width, colours and opacities; a fill colour closes the ring into a polygon", () => {
    const line = "_p~iF~ps|U_ulLnnqC_mqNvxq`@";
    expect(decodePolyline(line)).toEqual([
      [-120.2, 38.5],
      [-120.95, 40.7],
      [-126.453, 43.252],
    ]);
    const [plain, filled] = parseOverlays([`path(${line}),path-3+f00-0.5+00f-0.25(${line})`]);
    expect(plain!.geometry.type).toBe("LineString");
    expect(plain!.properties).toMatchObject({ kind: "shape", strokeWidth: 5, stroke: "#555555", strokeOpacity: 1, fillOpacity: 0 });
    expect(filled!.geometry.type).toBe("Polygon");
    expect(filled!.properties).toMatchObject({ strokeWidth: 3, stroke: "#f00", strokeOpacity: 0.5, fill: "#00f", fillOpacity: 0.25 });
    const ring = (filled!.geometry as GeoJSON.Polygon).coordinates[0]!;
    expect(ring[0]).toEqual(ring[ring.length - 1]!);
  });

  test("geojson with simplestyle properties; points become markers", () => {
    const fc = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", geometry: { type: "Point", coordinates: [8.5, 47.4] }, properties: { "marker-color": "#00f", "marker-size": "large", "marker-symbol": "7" } },
        { type: "Feature", geometry: { type: "LineString", coordinates: [[8, 47], [9, 48]] }, properties: { stroke: "#123456", "stroke-width": 4 } },
        { type: "Feature", geometry: { type: "Polygon", coordinates: [[[8, 47], [9, 47], [9, 48], [8, 47]]] }, properties: { fill: "#0f0", "fill-opacity": 0.3 } },
      ],
    };
    const features = parseOverlays([`geojson(${JSON.stringify(fc)})`]);
    expect(features.map((f) => f.properties.kind)).toEqual(["marker", "shape", "shape"]);
    expect(features[0]!.properties).toMatchObject({ color: "#00f", radius: 9, label: "7" });
    expect(features[1]!.properties).toMatchObject({ stroke: "#123456", strokeWidth: 4 });
    expect(features[2]!.properties).toMatchObject({ fill: "#0f0", fillOpacity: 0.3 });
    // A bare geometry and a Feature are accepted too; parentheses inside JSON strings do not end the item.
    expect(parseOverlays([`geojson({"type":"Point","coordinates":[1,2]}),geojson({"type":"Feature","properties":{"title":"a (b)"},"geometry":{"type":"Point","coordinates":[3,4]}})`])).toHaveLength(2);
    expect(overlayPositions(features)).toHaveLength(1 + 2 + 4);
  });

  test("bad overlays are 400s naming the overlay and the problem", () => {
    rejects(() => parseOverlays(["pin-m(1,2)"]), "pin-m");
    rejects(() => parseOverlays(["pin-s(1)"]), "longitude and a latitude");
    rejects(() => parseOverlays(["pin-s(200,2)"]), "outside");
    rejects(() => parseOverlays(["pin-s+ggg(1,2)"]), "hex colour");
    rejects(() => parseOverlays(["pin-s(1,2"]), "closing parenthesis");
    rejects(() => parseOverlays(["pin-s(1,2)pin-s(1,2)"]), "between overlays");
    rejects(() => parseOverlays(["marker(1,2)"]), "unknown overlay");
    rejects(() => parseOverlays(["path-99(_p~iF~ps|U_ulLnnqC)"]), "stroke width");
    rejects(() => parseOverlays(["path(_p~iF~ps|U_ulLnnq)"]), "invalid polyline");
    rejects(() => parseOverlays(["path(_p~iF~ps|U)"]), "at least two points");
    rejects(() => parseOverlays(["path(ab cd)"]), "alphabet");
    rejects(() => parseOverlays(["geojson({nope})"]), "valid JSON");
    rejects(() => parseOverlays(['geojson({"type":"Point","coordinates":[1]})']), "position");
    rejects(() => parseOverlays(['geojson({"type":"Point","coordinates":[1,95]})']), "outside");
    rejects(() => parseOverlays(['geojson({"type":"Circle","coordinates":[1,2]})']), "unknown geometry type");
    rejects(() => parseOverlays(['geojson({"type":"LineString","coordinates":[[1,2]]})']), "at least 2");
    rejects(() => parseOverlays(['geojson({"type":"Feature","properties":{"stroke":"red"},"geometry":{"type":"Point","coordinates":[1,2]}})']), "properties.stroke");
    rejects(() => parseOverlays(['geojson({"type":"Feature","properties":{"marker-size":"huge"},"geometry":{"type":"Point","coordinates":[1,2]}})']), "marker-size");
    rejects(() => parseOverlays(['geojson({"type":"FeatureCollection","features":[{"type":"Nope"}]})']), "features[0]");
  });

  test("limits: overlay length and number of markers", () => {
    const pins = Array.from({ length: MAX_MARKERS + 1 }, (_, i) => `pin-s(${i % 180},1)`).join(",");
    rejects(() => parseOverlays([pins]), "markers");
    expect(parseOverlays([Array.from({ length: MAX_MARKERS }, () => "pin-s(1,1)").join(",")])).toHaveLength(MAX_MARKERS);
    rejects(() => parseOverlays(["pin-s(1,1)", `geojson(${" ".repeat(MAX_OVERLAY_CHARS)})`]), "characters");
  });
});

describe("view arithmetic", () => {
  test("auto fits the overlay bounds inside the padding", () => {
    const fit = fitPositions([[-10, -10], [10, 10]], 512, 512, { top: 0, right: 0, bottom: 0, left: 0 })!;
    expect(fit.center[0]).toBeCloseTo(0, 6);
    expect(fit.center[1]).toBeCloseTo(0, 6);
    // 20 degrees of 360 fill 512 px: the world is 512 * 18 px wide, zoom log2(18).
    expect(fit.zoom).toBeCloseTo(Math.log2(18), 1);
    const padded = fitPositions([[-10, -10], [10, 10]], 512, 512, { top: 0, right: 0, bottom: 0, left: 256 })!;
    expect(padded.zoom).toBeCloseTo(Math.log2(9), 1);
    expect(padded.center[0]).toBeLessThan(0);
    // A single point: the maximum zoom of auto, centered on it.
    const one = fitPositions([[8.5, 47.4]], 300, 200, { top: 10, right: 10, bottom: 10, left: 10 });
    expect(one).toEqual({ center: [expect.closeTo(8.5, 6), expect.closeTo(47.4, 6)], zoom: 16 });
  });

  test("nothing finite to fit (no positions, or a NaN among them) is null, never a NaN view for the renderer", () => {
    const none = { top: 0, right: 0, bottom: 0, left: 0 };
    expect(fitPositions([], 300, 200, none)).toBeNull();
    expect(fitPositions([[8, 47], [NaN, 3]], 300, 200, none)).toBeNull();
    expect(fitPositions([[Infinity, 3]], 300, 200, none)).toBeNull();
  });

  test("raster tile views: 512 tiles at MapLibre's zoom, 256 tiles one zoom lower", () => {
    expect(tileView(0, 0, 0, 512)).toEqual({ center: [0, expect.closeTo(0, 9)], zoom: 0 });
    const v = tileView(3, 5, 2, 256);
    expect(v.zoom).toBe(2);
    const [x, y] = toWorld(v.center[0], v.center[1]);
    expect(x * 8).toBeCloseTo(5.5, 9);
    expect(y * 8).toBeCloseTo(2.5, 9);
  });
});

describe("messages stay short whatever the overlay", () => {
  // A colour or number of any length matches the name's pattern, so a name can be kilobytes long; the
  // 400 quoted all of it, burying the problem at the end of an 8 KiB message.
  test("a name of thousands of characters is cut in the message, which still names the problem", () => {
    const line = "_p~iF~ps|U_ulLnnqC";
    for (const [overlay, problem] of [
      [`pin-l+${"a".repeat(3000)}(1,1)`, "must be a hex colour"],
      [`path-${"9".repeat(3000)}(${line})`, "stroke width"],
      [`path-5+f${"9".repeat(3000)}(${line})`, "must be a hex colour"],
      [`path-1+f00-1+0f0-${"1".repeat(3000)}(${line})`, "fill opacity"],
      [`pin-s-${"b".repeat(30)}+${"c".repeat(3000)}(1,2,3)`, "needs exactly a longitude and a latitude"],
      [`pin-s+${"c".repeat(3000)}(500,1)`, "outside longitude"],
    ] as const) {
      try {
        parseOverlays([overlay]);
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).message).toContain(problem);
        expect((err as AppError).message.length).toBeLessThan(250);
        continue;
      }
      throw new Error(`expected a 400 for ${overlay.slice(0, 60)}`);
    }
  });
});
