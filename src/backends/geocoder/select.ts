// Which backend answers geocoding (GEOCODER, resolved in config.ts). The embedded gazetteer is built once
// by createServices and shared with health, preflight and the gazetteer admin routes.
import type { AppContext } from "../../context";
import type { Gazetteer } from "./embedded/gazetteer";
import { createPeliasGeocoder } from "./pelias";
import type { Geocoder } from "./types";

/** The configured backend, or null when geocoding is off (routes answer 503 GEOCODER_NOT_CONFIGURED). */
export function configuredGeocoder(ctx: AppContext, gazetteer: () => Gazetteer): Geocoder | null {
  switch (ctx.config.geocoder) {
    case "pelias":
      return createPeliasGeocoder({ baseUrl: ctx.config.geocoderUrl!, timeoutMs: ctx.config.geocoderTimeoutMs, log: ctx.log });
    case "embedded":
      return gazetteer().geocoder;
    case "off":
      return null;
  }
}
