// Upload-time checks of raster-DEM data (422 INVALID_SOURCE_DATA at once rather than a failed version
// later): the recipe's `encoding` only fits elevation data, DEM archives must hold PNG or lossless WebP
// tiles, and a bare .hgt file must be named after its corner.
import { Unprocessable } from "../../errors";
import type { SourceFormat } from "../../tiles/detect";
import { archiveTileType, firstTileIsLossyWebp } from "../../tiles/dem/archive";
import { hgtCorner } from "../../tiles/dem/hgt";
import type { Recipe } from "../../tiles/recipe";
import { headOf } from "./upload";

const invalid = (message: string) => new Unprocessable("INVALID_SOURCE_DATA", message);

/** Checks one uploaded file: `path` is where it lies, `filename` its own name when known. */
export async function refuseBadDem(format: SourceFormat, path: string, filename: string | null, recipe: Recipe): Promise<void> {
  const label = filename ?? "upload";
  if (format === "mbtiles" || format === "pmtiles") {
    if (!recipe.encoding) return;
    const type = await archiveTileType(path, format);
    if (type !== null && type !== "png" && type !== "webp") throw invalid(`${label}: encoding=${recipe.encoding} marks a raster DEM, but the archive holds ${type} tiles; DEM tiles must be PNG or lossless WebP`);
    if (type === "webp" && firstTileIsLossyWebp(path, format))
      throw invalid(`${label}: its WebP tiles are lossy, which changes the colours that encode heights (by up to hundreds of metres); encode them as lossless WebP or PNG and upload again`);
    return;
  }
  if (format === "hgt") {
    const zipped = (await headOf(path, 2))[0] === 0x50;
    if (!zipped && !hgtCorner(label)) throw invalid(`${label}: an SRTM .hgt file must be named after its south-west corner, like N46E007.hgt (send it with ?filename=N46E007.hgt)`);
    return;
  }
  if (format === "geotiff") return;
  if (recipe.encoding) throw invalid(`${label}: encoding=${recipe.encoding} is for raster-DEM data (GeoTIFF, .hgt, or MBTiles/PMTiles of PNG or lossless WebP elevation tiles), but this upload is ${format}`);
}

/** Several files in one version: elevation rasters make a raster-DEM tileset, so they cannot be mixed with vector data. */
export function refuseMixedDem(formats: SourceFormat[]): void {
  const dem = formats.filter((f) => f === "geotiff" || f === "hgt").length;
  if (dem && dem < formats.length) throw invalid("elevation files (GeoTIFF, .hgt) make a raster-DEM tileset and cannot be uploaded with vector data in one version");
}
