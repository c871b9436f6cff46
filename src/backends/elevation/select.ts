// Which backend answers the elevation API (ELEVATION, CONTRACT.md): `auto` prefers the OpenTopoData
// URL, then the embedded DEM tileset, else none; an explicit mode is what it says (config.ts refuses
// one without what it needs).
import type { AppContext } from "../../context";
import type { Config } from "../../config";
import type { TileCatalog } from "../../read/tiles";
import { createEmbeddedElevation } from "./embedded";
import { createOpenTopoData, type ElevationBackend } from "./opentopodata";

export type ElevationChoice =
  | { backend: "opentopodata"; url: string }
  | { backend: "embedded"; tileset: { owner: string; slug: string } }
  | { backend: "none"; reason: "off" | "unset" };

export function elevationChoice(config: Pick<Config, "elevation" | "elevationUrl" | "elevationTileset">): ElevationChoice {
  const mode = config.elevation;
  if (mode === "off") return { backend: "none", reason: "off" };
  if (config.elevationUrl && (mode === "auto" || mode === "opentopodata")) return { backend: "opentopodata", url: config.elevationUrl };
  if (config.elevationTileset && (mode === "auto" || mode === "embedded")) return { backend: "embedded", tileset: config.elevationTileset };
  return { backend: "none", reason: "unset" };
}

/** The backend ELEVATION chooses, built; the embedded one reads through the tile routes' catalog. */
export function configuredElevationBackend(ctx: AppContext, catalog: () => TileCatalog): ElevationBackend | null {
  const choice = elevationChoice(ctx.config);
  if (choice.backend === "opentopodata") return createOpenTopoData({ baseUrl: choice.url, timeoutMs: ctx.config.elevationTimeoutMs, log: ctx.log });
  if (choice.backend === "embedded") return createEmbeddedElevation(ctx, choice.tileset, catalog());
  return null;
}
