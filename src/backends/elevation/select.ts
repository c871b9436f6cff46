// Which backend answers the elevation API (ELEVATION, CONTRACT.md): `auto` prefers the OpenTopoData
// URL, then the embedded DEM tileset (ELEVATION_TILESET, else the one chosen in the console), else
// none; an explicit mode is what it says (config.ts refuses opentopodata without its URL).
import type { AppContext } from "../../context";
import type { Config } from "../../config";
import type { ChangeBus } from "../../domain/changes/bus";
import type { TileCatalog } from "../../read/tiles";
import { effectiveDemTileset, storedDemTileset, tilesetName, type TilesetName } from "./dem-setting";
import { createEmbeddedElevation } from "./embedded";
import { createOpenTopoData, type ElevationBackend } from "./opentopodata";

export type ElevationChoice =
  | { backend: "opentopodata"; url: string }
  | { backend: "embedded"; tileset: TilesetName }
  | { backend: "none"; reason: "off" | "unset" };

/** @param config with `elevationTileset` the DEM in force (ELEVATION_TILESET or the console's choice) */
export function elevationChoice(config: Pick<Config, "elevation" | "elevationUrl" | "elevationTileset">): ElevationChoice {
  const mode = config.elevation;
  if (mode === "off") return { backend: "none", reason: "off" };
  if (config.elevationUrl && (mode === "auto" || mode === "opentopodata")) return { backend: "opentopodata", url: config.elevationUrl };
  if (config.elevationTileset && (mode === "auto" || mode === "embedded")) return { backend: "embedded", tileset: config.elevationTileset };
  return { backend: "none", reason: "unset" };
}

/**
 * The backend that answers now, for the elevation service: rebuilt when the console's DEM choice
 * changes, in this process or another (the change bus brings it), and the same object otherwise.
 * The embedded one reads through the tile routes' catalog.
 */
export function liveElevationBackend(ctx: AppContext, catalog: () => TileCatalog, changes: ChangeBus): () => ElevationBackend | null {
  let stored: TilesetName | null | undefined;
  changes.on((change) => {
    if (change.kind === "elevation") stored = undefined;
  });
  let built: { key: string; backend: ElevationBackend | null } | null = null;
  return () => {
    stored ??= storedDemTileset(ctx.sqlite);
    const choice = elevationChoice({ ...ctx.config, elevationTileset: effectiveDemTileset(ctx.config, stored)?.tileset ?? null });
    const key = choice.backend === "embedded" ? `embedded:${tilesetName(choice.tileset)}` : choice.backend;
    if (built?.key !== key) {
      const backend =
        choice.backend === "opentopodata"
          ? createOpenTopoData({ baseUrl: choice.url, timeoutMs: ctx.config.elevationTimeoutMs, log: ctx.log })
          : choice.backend === "embedded"
            ? createEmbeddedElevation(ctx, choice.tileset, catalog())
            : null;
      built = { key, backend };
    }
    return built.backend;
  };
}
