// The incremental FeatureCollection scanner: same features as JSON.parse however the text is chunked.
import { describe, expect, test } from "bun:test";
import { JsonScanError, scanFeatureCollection, type ScannedDocument } from "../../src/tiles/readers/json-stream";

async function* pieces(text: string, size: number) {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function scan(text: string, size: number) {
  const doc: ScannedDocument = { type: null, sawFeatures: false };
  const out: unknown[] = [];
  for await (const el of scanFeatureCollection(pieces(text, size), doc)) out.push(JSON.parse(el));
  return { doc, out };
}

const tricky = {
  name: 'braces } ] { [ and "quotes" \\ in strings',
  features: [
    { type: "Feature", geometry: { type: "Point", coordinates: [1, 2] }, properties: { s: "}]\"{[", e: "\\\\", u: "ü 日本" } },
    { type: "Feature", geometry: { type: "LineString", coordinates: [[1, 2], [3, 4]] }, properties: { nested: { a: [1, { b: 2 }] } } },
  ],
  bbox: [0, 0, 1, 1],
  type: "FeatureCollection",
};

describe("scanFeatureCollection", () => {
  for (const size of [1, 3, 7, 64, 100_000])
    test(`chunks of ${size}: every feature, type found after the features`, async () => {
      const text = JSON.stringify(tricky, null, size === 7 ? 2 : undefined);
      const { doc, out } = await scan(text, size);
      expect(doc).toEqual({ type: "FeatureCollection", sawFeatures: true });
      expect(out).toEqual(tricky.features);
    });

  for (const size of [1, 5, 100_000])
    test(`chunks of ${size}: the top-level crs object is kept as text, with whether it came after features`, async () => {
      const crs = { type: "name", properties: { name: "urn:ogc:def:crs:EPSG::3857" } };
      const before = await scan(JSON.stringify({ type: "FeatureCollection", crs, features: tricky.features }), size);
      expect(JSON.parse(before.doc.crs!)).toEqual(crs);
      expect(before.doc.crsAfterFeatures).toBe(false);
      expect(before.out).toEqual(tricky.features);
      const after = await scan(JSON.stringify({ type: "FeatureCollection", features: tricky.features, crs }), size);
      expect(after.doc.crsAfterFeatures).toBe(true);
      // A "crs" inside a feature's properties is not the document's.
      const inner = await scan(JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: null, properties: { crs } }] }), size);
      expect(inner.doc.crs).toBeUndefined();
    });

  test("a crs member too big to be a name is refused", async () => {
    const text = JSON.stringify({ type: "FeatureCollection", crs: { type: "name", properties: { name: "x".repeat(100_000) } }, features: [] });
    await expect(scan(text, 4096)).rejects.toThrow(JsonScanError);
  });

  test("a Feature document yields nothing and reports its type", async () => {
    const { doc, out } = await scan(JSON.stringify({ type: "Feature", geometry: null, properties: { features: [1] } }), 5);
    expect(out).toEqual([]);
    expect(doc).toEqual({ type: "Feature", sawFeatures: false });
  });

  test("truncation, stray brackets, arrays and non-object elements are errors", async () => {
    const text = JSON.stringify(tricky);
    await expect(scan(text.slice(0, text.length / 2), 10)).rejects.toThrow(/truncated/);
    await expect(scan(text + "}", 10)).rejects.toThrow(JsonScanError);
    await expect(scan("[1,2]", 10)).rejects.toThrow(/array is not GeoJSON/);
    await expect(scan('{"type":"FeatureCollection","features":[{"type":"Feature"}, 5]}', 4)).rejects.toThrow(/not a GeoJSON Feature object/);
  });
});
