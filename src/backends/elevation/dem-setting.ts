// The DEM tileset an admin chose in the console for embedded elevation, kept in the settings table
// (key elevation_tileset, value owner/slug), so every process reads the same choice. ELEVATION_TILESET
// in the environment wins over it: an operator who pins the DEM in the service file keeps it pinned.
import type { Database } from "bun:sqlite";
import type { Config } from "../../config";

export type TilesetName = { owner: string; slug: string };
export type DemTilesetSource = "env" | "console";

const KEY = "elevation_tileset";

export const tilesetName = (t: TilesetName) => `${t.owner}/${t.slug}`;

/** The console's choice, or null when none was made (or the settings table cannot be read). */
export function storedDemTileset(sqlite: Database): TilesetName | null {
  let value: string | undefined;
  try {
    value = sqlite.query<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?").get(KEY)?.value;
  } catch {
    return null; // a closed or broken database: health reports that as the core failure it is
  }
  const [owner, slug] = value?.split("/") ?? [];
  return owner && slug ? { owner, slug } : null;
}

/** Records the console's choice (null clears it); call inside the transaction that publishes the change. */
export function storeDemTileset(sqlite: Database, tileset: TilesetName | null): void {
  if (!tileset) sqlite.query("DELETE FROM settings WHERE key = ?").run(KEY);
  else
    sqlite
      .query("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
      .run(KEY, tilesetName(tileset), Date.now());
}

/** The DEM tileset embedded elevation samples: ELEVATION_TILESET when set, else the console's choice. */
export function effectiveDemTileset(config: Pick<Config, "elevationTileset">, stored: TilesetName | null): { tileset: TilesetName; source: DemTilesetSource } | null {
  if (config.elevationTileset) return { tileset: config.elevationTileset, source: "env" };
  return stored ? { tileset: stored, source: "console" } : null;
}
