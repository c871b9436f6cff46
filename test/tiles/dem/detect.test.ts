import { describe, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { detectFormat } from "../../../src/tiles/detect";

describe("detecting elevation uploads", () => {
  test("GeoTIFF by its magic (little- and big-endian, BigTIFF)", () => {
    for (const magic of ["II*\u0000", "MM\u0000*", "II+\u0000"]) expect(detectFormat(new TextEncoder().encode(`${magic}........`)).format).toBe("geotiff");
  });

  test(".hgt has no header: only its name tells it", () => {
    const bytes = new Uint8Array(242);
    expect(detectFormat(bytes, { filename: "N46E007.hgt" }).format).toBe("hgt");
    expect(detectFormat(bytes).format).toBeNull();
  });

  test("a zip whose first entry is an .hgt, or named *.hgt.zip, is elevation; other zips stay Shapefiles", () => {
    const hgtFirst = zipSync({ "N46E007.hgt": new Uint8Array(8) });
    const readmeFirst = zipSync({ "readme.txt": new Uint8Array(1), "N46E007.hgt": new Uint8Array(8) });
    expect(detectFormat(hgtFirst).format).toBe("hgt");
    expect(detectFormat(readmeFirst, { filename: "alps.hgt.zip" }).format).toBe("hgt");
    expect(detectFormat(readmeFirst, { filename: "roads.zip" }).format).toBe("shapefile");
  });
});
