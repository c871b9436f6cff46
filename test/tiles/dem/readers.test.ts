import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { zipSync } from "fflate";
import { writeArrayBuffer } from "geotiff";
import { InvalidSource } from "../../../src/tiles/errors";
import { readGeotiff } from "../../../src/tiles/dem/geotiff";
import { sampleGrid } from "../../../src/tiles/dem/grid";
import { hgtCorner, readHgt, readHgtZip } from "../../../src/tiles/dem/hgt";
import { geotiffBytes, hgtBytes, ramp } from "../../support/dem";
import { tempDir } from "../../support/temp";

const dir = tempDir("mapstead-dem-readers-");

describe(".hgt reader", () => {
  test("the file name gives the south-west corner", () => {
    expect(hgtCorner("N46E007.hgt")).toEqual({ lon: 7, lat: 46 });
    expect(hgtCorner("dir/s01w075.HGT")).toEqual({ lon: -75, lat: -1 });
    expect(hgtCorner("dem.hgt")).toBeNull();
  });

  test("samples sit on whole fractions of a degree and interpolate bilinearly between them", () => {
    const grid = readHgt(hgtBytes(11, { lon: 7, lat: 46 }, ramp), "N46E007.hgt");
    expect(grid.bounds).toEqual([7, 46, 8, 47]);
    expect(sampleGrid(grid, 7, 47)).toBe(1300); // north-west sample
    expect(sampleGrid(grid, 8, 46)).toBe(1200); // south-east sample
    expect(sampleGrid(grid, 7.55, 46.45)!).toBeCloseTo(ramp(7.55, 46.45), 0);
    expect(sampleGrid(grid, 8.01, 46.5)).toBeNull();
  });

  test("voids (-32768) become no data", () => {
    const bytes = hgtBytes(3, { lon: 0, lat: 0 }, () => 5);
    new DataView(bytes.buffer).setInt16(0, -32768, false);
    const grid = readHgt(bytes, "N00E000.hgt");
    expect(sampleGrid(grid, 0, 1)).toBeNull();
    expect(sampleGrid(grid, 1, 0)).toBe(5);
  });

  test("next to a void, a point nearer a real sample blends only the real ones; nearer the void it has no height", () => {
    // 3 x 3 samples half a degree apart, 10, 20, 30 m from west to east; the north-west one (0,1) a void.
    const bytes = hgtBytes(3, { lon: 0, lat: 0 }, (lon) => 10 + 20 * lon);
    new DataView(bytes.buffer).setInt16(0, -32768, false);
    const grid = readHgt(bytes, "N00E000.hgt");
    // Nearest the 20 m sample east of the void: 20, 10, 20 m weigh .48, .08, .12 (the void's .32 drops out).
    expect(sampleGrid(grid, 0.3, 0.9)!).toBeCloseTo((20 * 0.48 + 10 * 0.08 + 20 * 0.12) / 0.68, 4);
    // Nearest the 10 m sample south of it: 20, 10, 20 m weigh .08, .48, .12.
    expect(sampleGrid(grid, 0.1, 0.7)!).toBeCloseTo((20 * 0.08 + 10 * 0.48 + 20 * 0.12) / 0.68, 4);
    expect(sampleGrid(grid, 0.2, 0.9)).toBeNull();
    expect(sampleGrid(grid, 0.2, 0.8)).toBeNull();
  });

  test("bad names and sizes are refused", () => {
    expect(() => readHgt(hgtBytes(3, { lon: 0, lat: 0 }, () => 1), "dem.hgt")).toThrow(/named after its south-west corner/);
    expect(() => readHgt(new Uint8Array(7), "N00E000.hgt")).toThrow(/not a square grid/);
  });

  test("zips of .hgt files are read, with unsafe names and empty zips refused", () => {
    const zip = zipSync({ "N46E007.hgt": hgtBytes(5, { lon: 7, lat: 46 }, ramp), "N46E008.hgt": hgtBytes(5, { lon: 8, lat: 46 }, ramp), "readme.txt": new TextEncoder().encode("hi") });
    const grids = readHgtZip(zip, "srtm.zip");
    expect(grids.map((g) => g.bounds[0]).sort()).toEqual([7, 8]);
    expect(() => readHgtZip(zipSync({ "../N46E007.hgt": new Uint8Array(50) }), "evil.zip")).toThrow(/unsafe path/);
    expect(() => readHgtZip(zipSync({ "a.txt": new Uint8Array(5) }), "none.zip")).toThrow(/no .hgt files/);
    expect(() => readHgtZip(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]), "broken.zip")).toThrow(InvalidSource);
  });
});

describe("GeoTIFF reader", () => {
  test("a geographic float GeoTIFF reads to a grid with area pixels centred", async () => {
    const path = join(dir, "ramp.tif");
    await Bun.write(path, geotiffBytes(20, 20, [7, 46, 8, 47], ramp));
    const grid = await readGeotiff(path, "ramp.tif");
    expect(grid.bounds).toEqual([7, 46, 8, 47]);
    expect(grid.lon0).toBeCloseTo(7.025, 9);
    expect(grid.lat0).toBeCloseTo(46.975, 9);
    for (const [lon, lat] of [[7.3, 46.2], [7.81, 46.77], [7.5, 46.5]] as const) expect(Math.abs(sampleGrid(grid, lon, lat)! - ramp(lon, lat))).toBeLessThan(1e-3);
  });

  test("projected GeoTIFFs and non-TIFF bytes are refused with the fix", async () => {
    const projected = writeArrayBuffer(new Float32Array(4), { width: 2, height: 2, ModelPixelScale: [10, 10, 0], ModelTiepoint: [0, 0, 0, 500000, 5000000, 0], ProjectedCSTypeGeoKey: 32632, GTModelTypeGeoKey: 1 } as never);
    await Bun.write(join(dir, "utm.tif"), new Uint8Array(projected));
    await expect(readGeotiff(join(dir, "utm.tif"), "utm.tif")).rejects.toThrow(/gdalwarp -t_srs EPSG:4326/);
    const whole = geotiffBytes(40, 40, [7, 46, 8, 47], ramp);
    await Bun.write(join(dir, "truncated.tif"), whole.slice(0, whole.length - 3000));
    await expect(readGeotiff(join(dir, "truncated.tif"), "truncated.tif")).rejects.toThrow(InvalidSource);
    await Bun.write(join(dir, "junk.tif"), "II*\u0000 junk");
    await expect(readGeotiff(join(dir, "junk.tif"), "junk.tif")).rejects.toThrow(/not a readable GeoTIFF/);
  });
});
