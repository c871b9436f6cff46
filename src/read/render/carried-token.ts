// The `access_token` a raster TileJSON repeats in its tile template. A client handed only the TileJSON
// URL (MapLibre's raster source `url`, OpenLayers' TileJSON source) requests the tiles exactly as the
// TileJSON lists them: without the key there, every tile of a private style was a 404. Mapbox's TileJSON
// repeats the token the same way. Only a token that was accepted is repeated (an invalid one reads as no
// key), and never when the key came in X-API-Key: such a client sends its header with the tiles too.
import type { Viewer } from "../../http/auth";

export function carriedAccessToken(request: Request, viewer: Viewer): string | null {
  if (!viewer.authenticated || request.headers.has("x-api-key")) return null;
  const q = request.url.indexOf("?");
  if (q < 0) return null;
  const tokens = new URLSearchParams(request.url.slice(q + 1)).getAll("access_token");
  return tokens.length === 1 && tokens[0] !== "" ? tokens[0]! : null;
}
