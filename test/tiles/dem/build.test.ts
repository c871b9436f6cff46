import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildDemTiles, nativeZoom } from "../../../src/tiles/dem/build";
import { decodeDemTile, type DemEncoding } from "../../../src/tiles/dem/encoding";
import { readHgt } from "../../../src/tiles/dem/hgt";
import { sampleDem } from "../../../src/tiles/dem/sample";
import { inspectMbtiles, openMbtiles } from "../../../src/tiles/mbtiles";
import { hgtBytes, ramp } from "../../support/dem";
import { tempDir } from "../../support/temp";

const dir = tempDir("mapstead-dem-build-");
const EDGE_TOLERANCE_M = 1.2;

function build(encoding: DemEncoding, maxzoom: number) {
  const grid = readHgt(hgtBytes(101, { lon: 7, lat: 46 }, ramp), "N46E007.hgt");
  const out = join(dir, `${encoding}-${maxzoom}.mbtiles`);
  const progress: number[] = [];
  const result = buildDemTiles([grid], { encoding, maxzoom, outPath: out, name: "alps", description: "", attribution: "SRTM", label: "N46E007.hgt" }, (p) => progress.push(p));
  return { out, result, progress };
}

describe("building DEM tiles from elevation grids", () => {
  test("the native zoom follows the sample spacing (3 arc-seconds -> z11, 1 arc-second -> z13)", () => {
    expect(nativeZoom([readHgt(hgtBytes(1201, { lon: 7, lat: 46 }, () => 0), "N46E007.hgt")])).toBe(11);
    expect(nativeZoom([{ ...readHgt(hgtBytes(2, { lon: 7, lat: 46 }, () => 0), "N46E007.hgt"), dLon: 1 / 3600, dLat: 1 / 3600 }])).toBe(13);
  });

  for (const encoding of ["terrarium", "mapbox"] as const)
    test(`${encoding}: the archive declares itself as DEM and its tiles sample back to the source heights`, async () => {
      const { out, result, progress } = build(encoding, 9);
      expect(result.facts).toMatchObject({ format: "png", encoding, minzoom: 0, maxzoom: 9, bounds: [7, 46, 8, 47] });
      expect(progress.length).toBeGreaterThan(0);
      const inspected = inspectMbtiles(out, "built");
      expect(inspected.facts.encoding).toBe(encoding);
      const source = openMbtiles(out, inspected.facts);
      const tileAt = (x: number, y: number) => {
        const t = source.getTile(9, x, y) as { data: Uint8Array } | null;
        return t ? decodeDemTile(t.data, encoding, "tile") : null;
      };
      for (let i = 0; i < 25; i++) {
        const lon = 7.05 + Math.random() * 0.9;
        const lat = 46.05 + Math.random() * 0.9;
        expect(Math.abs((await sampleDem(lon, lat, 9, tileAt))! - ramp(lon, lat))).toBeLessThan(0.5);
      }
      expect(await sampleDem(20, 10, 9, tileAt)).toBeNull();
      // On and next to the edges of the data, the pixels beyond them (no data, 0 m) are not blended in:
      // the outermost pixels inside stand in for them, off by at most the ramp's rise over one z9 pixel
      // (0.55 m east, 0.57 m north; blending in the empty pixels was off by up to 1,150 m).
      for (const lon of [7, 7.0001, 7.5, 7.9999, 8])
        for (const lat of [46, 46.0001, 46.5, 46.9999, 47])
          expect({ lon, lat, off: Math.abs((await sampleDem(lon, lat, 9, tileAt, result.facts.bounds))! - ramp(lon, lat)) < EDGE_TOLERANCE_M }).toEqual({ lon, lat, off: true });
      source.close();
    });

  test("a mosaic with a gap: the gap is no data (not 0 m) in the tiles, the files' edges keep their heights, and the gap is counted", async () => {
    // N46E007 and N46E009 without N46E008 between them.
    const grids = [readHgt(hgtBytes(61, { lon: 7, lat: 46 }, ramp), "N46E007.hgt"), readHgt(hgtBytes(61, { lon: 9, lat: 46 }, ramp), "N46E009.hgt")];
    const out = join(dir, "gap.mbtiles");
    const result = buildDemTiles(grids, { encoding: "terrarium", maxzoom: 9, outPath: out, name: "gap", description: "", attribution: "", label: "gap.zip" }, () => {});
    expect(result.facts.bounds).toEqual([7, 46, 10, 47]);
    // A third of the bounding box, give or take the pixels cut by its edges.
    expect(Math.abs(result.pixelsUncovered / result.pixelsInBounds - 1 / 3)).toBeLessThan(0.01);
    const source = openMbtiles(out, inspectMbtiles(out, "built").facts);
    const tileAt = (x: number, y: number) => {
      const t = source.getTile(9, x, y) as { data: Uint8Array } | null;
      return t ? decodeDemTile(t.data, "terrarium", "tile") : null;
    };
    const at = (lon: number, lat: number) => sampleDem(lon, lat, 9, tileAt, result.facts.bounds);
    // 8.01 and 8.99 lie in tiles that also hold data, 8.5 in one left out: all three are no data.
    for (const lon of [8.01, 8.05, 8.5, 8.95, 8.99]) expect({ lon, h: await at(lon, 46.5) }).toEqual({ lon, h: null });
    // On the last column of N46E007 and the first of N46E009, and next to them: their heights, not a
    // blend with the gap (which was drawn as 0 m and blended in: 8,46.5 answered 1048.89 for 1350).
    for (const lon of [7.5, 7.999, 8, 9, 9.001, 9.5]) expect({ lon, off: Math.abs((await at(lon, 46.5))! - ramp(lon, 46.5)) < EDGE_TOLERANCE_M }).toEqual({ lon, off: true });
    source.close();
    expect(build("terrarium", 5).result.pixelsUncovered).toBe(0);
  });

  test("too many tiles and inverted zooms are refused before any work", () => {
    const grid = readHgt(hgtBytes(3, { lon: 7, lat: 46 }, ramp), "N46E007.hgt");
    const opts = { encoding: "terrarium" as const, outPath: join(dir, "x.mbtiles"), name: "x", description: "", attribution: "", label: "x.hgt" };
    const world = { ...grid, bounds: [-180, -85, 180, 85] as [number, number, number, number] };
    expect(() => buildDemTiles([world], { ...opts, maxzoom: 10 }, () => {})).toThrow(/make \d+ tiles \(limit 250000\); choose a lower maxzoom/);
    expect(() => buildDemTiles([grid], { ...opts, minzoom: 5, maxzoom: 3 }, () => {})).toThrow(/minzoom 5 is above the maxzoom 3/);
  });
});
