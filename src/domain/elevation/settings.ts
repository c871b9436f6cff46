// The console's Elevation settings: which backend answers the elevation API, the DEM tileset in force
// and where that choice comes from (ELEVATION_TILESET wins over the console), the DEM's coverage and
// zooms or what is wrong with it, the DEM tilesets an admin may choose, and the choice itself: kept in
// the settings table, and carried to every process (HTTP workers, the CLI) by the change bus.
import type { AppContext } from "../../context";
import { BadRequest, Conflict, NotFound } from "../../errors";
import { effectiveDemTileset, storeDemTileset, storedDemTileset, tilesetName, type DemTilesetSource } from "../../backends/elevation/dem-setting";
import { inspectDemTileset, type DemTilesetFacts } from "../../backends/elevation/embedded-probe";
import { elevationChoice } from "../../backends/elevation/select";
import type { ChangeBus } from "../changes/bus";
import { isSlug } from "../orgs/slug";

export interface ElevationSettings {
  mode: string;
  backend: "opentopodata" | "embedded" | "none";
  tileset: string | null;
  source: DemTilesetSource | null;
  console_tileset: string | null;
  dem: DemTilesetFacts | null;
  problem: { message: string; fix: string } | null;
  choices: { tileset: string; name: string; version: number; encoding: string; minzoom: number; maxzoom: number; bounds: number[] }[];
}

interface ChoiceRow {
  owner: string;
  slug: string;
  name: string;
  version: number;
  metadata: string;
}

export function createElevationSettings(ctx: AppContext, changes: ChangeBus) {
  const { config, sqlite } = ctx;
  // Tilesets whose published version is a raster DEM, from every organization (admins choose for the server).
  const demTilesets = sqlite.query<ChoiceRow, []>(
    `SELECT o.slug AS owner, t.slug AS slug, t.name AS name, v.version AS version, v.metadata AS metadata
     FROM tilesets t JOIN orgs o ON o.id = t.org_id JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = t.published_version
     WHERE v.state = 'ready' AND json_extract(v.metadata, '$.encoding') IS NOT NULL ORDER BY o.slug, t.slug`,
  );
  const tilesetExists = sqlite.query<{ id: number }, [string, string]>("SELECT t.id FROM tilesets t JOIN orgs o ON o.id = t.org_id WHERE o.slug = ? AND t.slug = ?");

  function view(): ElevationSettings {
    const stored = storedDemTileset(sqlite);
    const inForce = effectiveDemTileset(config, stored);
    const choice = elevationChoice({ ...config, elevationTileset: inForce?.tileset ?? null });
    const inspected = inForce ? inspectDemTileset(config, sqlite, inForce.tileset) : null;
    return {
      mode: config.elevation,
      backend: choice.backend,
      tileset: inForce ? tilesetName(inForce.tileset) : null,
      source: inForce?.source ?? null,
      console_tileset: stored ? tilesetName(stored) : null,
      dem: inspected && "facts" in inspected ? inspected.facts : null,
      problem: inspected && "problem" in inspected ? { message: inspected.problem, fix: inspected.fix } : null,
      choices: demTilesets.all().map((r) => {
        const m = JSON.parse(r.metadata) as { encoding: string; minzoom: number; maxzoom: number; bounds: number[] };
        return { tileset: `${r.owner}/${r.slug}`, name: r.name, version: r.version, encoding: m.encoding, minzoom: m.minzoom, maxzoom: m.maxzoom, bounds: m.bounds };
      }),
    };
  }

  /** Makes `raw` (owner/slug, or null for none) the DEM of embedded elevation, in every process. */
  function choose(raw: string | null): ElevationSettings {
    if (config.elevationTileset)
      throw new Conflict(
        `ELEVATION_TILESET=${tilesetName(config.elevationTileset)} is set in the server's environment and wins over the console; remove it from the environment and restart to choose the DEM here`,
      );
    let tileset: { owner: string; slug: string } | null = null;
    if (raw !== null) {
      const [owner, slug, extra] = raw.split("/");
      if (extra !== undefined || !owner || !slug || !isSlug(owner) || !isSlug(slug))
        throw new BadRequest(`tileset must be owner/slug of a raster-DEM tileset, e.g. acme/srtm (got ${JSON.stringify(raw.slice(0, 140))})`, { parameter: "tileset" });
      if (!tilesetExists.get(owner, slug)) throw new NotFound(`Tileset ${owner}/${slug} does not exist`, "TILESET_NOT_FOUND");
      const inspected = inspectDemTileset(config, sqlite, { owner, slug });
      if ("problem" in inspected) throw new Conflict(`tileset: ${inspected.problem}; ${inspected.fix.charAt(0).toLowerCase()}${inspected.fix.slice(1)}`);
      tileset = { owner, slug };
    }
    sqlite.transaction(() => {
      storeDemTileset(sqlite, tileset);
      changes.publish({ kind: "elevation" });
    })();
    ctx.log.info("elevation DEM chosen", { tileset: tileset ? tilesetName(tileset) : null });
    return view();
  }

  return { view, choose };
}

export type ElevationSettingsService = ReturnType<typeof createElevationSettings>;
