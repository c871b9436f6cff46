// The address of a raster tile of a style, as the route receives it:
//   /styles/v1/{owner}/{style}[@{version}]/tiles/{256|512}/{z}/{x}/{y}[@2x][.{png|jpg|webp}]
// The formats are those of static images (the same encoder draws both). No extension is PNG: that is how
// Mapbox's Static Tiles API writes its URLs (.../tiles/{tilesize}/{z}/{x}/{y}{@2x}), so its tile URLs
// work unchanged. A wrong extension is named as such, not hidden behind a message about z, x and y.
import { BadRequest } from "../../errors";
import type { RasterTileRequest } from "./render-service";
import { FORMATS } from "./static-request";

const INT = /^\d{1,8}$/;
const TILE_Y = /^(\d{1,8})(@2x)?(?:\.(.+))?$/;

export interface RasterTileParams {
  owner: string;
  style: string;
  size: string;
  z: string;
  x: string;
  y: string;
}

export function parseRasterTile(params: RasterTileParams): RasterTileRequest {
  const m = TILE_Y.exec(params.y);
  if (!INT.test(params.z) || !INT.test(params.x) || !m) throw new BadRequest("z, x and y must be non-negative integers, the tile name {y}[@2x][.png|.jpg|.webp]");
  const format = m[3] === undefined ? "png" : FORMATS[m[3]];
  if (!format) throw new BadRequest(`tile format '.${m[3]!.slice(0, 20)}' is not supported: use .png, .jpg or .webp (or no extension, for PNG)`);
  if (params.size !== "256" && params.size !== "512") throw new BadRequest("The tile size must be 256 or 512");
  return {
    owner: params.owner,
    style: params.style,
    tileSize: Number(params.size) as 256 | 512,
    z: Number(params.z),
    x: Number(params.x),
    y: Number(m[1]),
    pixelRatio: m[2] ? 2 : 1,
    format,
  };
}
