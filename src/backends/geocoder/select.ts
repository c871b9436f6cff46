// Which backend answers geocoding (GEOCODER, resolved in config.ts), and the one embedded gazetteer
// of an app: the geocoding routes, health, preflight and the gazetteer admin routes share it.
import type { AppContext } from "../../context";
import { createGazetteer, type Gazetteer } from "./embedded/gazetteer";
import { createPeliasGeocoder } from "./pelias";
import type { Geocoder } from "./types";

const perContext = new WeakMap<AppContext, Gazetteer>();

export function gazetteerFor(ctx: AppContext): Gazetteer {
  let g = perContext.get(ctx);
  if (!g) {
    const created = createGazetteer({ dataDir: ctx.config.dataDir, log: ctx.log });
    ctx.onShutdown(() => created.close());
    perContext.set(ctx, (g = created));
  }
  return g;
}

/** The configured backend, or null when geocoding is off (routes answer 503 GEOCODER_NOT_CONFIGURED). */
export function configuredGeocoder(ctx: AppContext): Geocoder | null {
  switch (ctx.config.geocoder) {
    case "pelias":
      return createPeliasGeocoder({ baseUrl: ctx.config.geocoderUrl!, timeoutMs: ctx.config.geocoderTimeoutMs, log: ctx.log });
    case "embedded":
      return gazetteerFor(ctx).geocoder;
    case "off":
      return null;
  }
}
