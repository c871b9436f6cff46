// Which backend answers the elevation API (ELEVATION, CONTRACT.md): `auto` prefers the OpenTopoData
// URL, then the embedded DEM tileset, else none; an explicit mode is what it says (config.ts refuses
// one without what it needs).
import type { Config } from "../../config";

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
