// The `access_token` a raster TileJSON repeats in its tile template. A client handed only the TileJSON
// URL (MapLibre's raster source `url`, OpenLayers' TileJSON source) requests the tiles exactly as the
// TileJSON lists them: without the key there, every tile of a private style was a 404. Mapbox's TileJSON
// repeats the token the same way. Only a token that was accepted is repeated (an invalid one reads as no
// key), and never when the key came in X-API-Key: such a client sends its header with the tiles too.
import { accessTokenOf } from "../../domain/accounts/auth";
import type { Viewer } from "../../http/auth";

export function carriedAccessToken(request: Request, viewer: Viewer): string | null {
  // An authenticated viewer with a token in the URL was authenticated by it: auth reads a non-empty
  // access_token before the session, and a refused one (twice given, say) makes the viewer anonymous.
  if (!viewer.authenticated || request.headers.has("x-api-key")) return null;
  const token = accessTokenOf(request);
  return token ? token : null;
}
