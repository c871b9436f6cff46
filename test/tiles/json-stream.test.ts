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
