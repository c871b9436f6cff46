// Published files the database names that are not usable in DATA_DIR (deleted by hand, overwritten, a
// restore that left them out): tile archives of ready versions (missing, or not starting as an MBTiles /
// PMTiles file does), sprite directories of styles and their versions, and installed font files. Their
// URLs answer 503 until the files are back. Told by /health/detailed, the preflight and `mapstead backup`
// (one list, so the three agree), so a restore checked with `mapstead preflight` does not pass with holes.
import type { Database } from "bun:sqlite";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { SPRITE_FILES } from "../sprites/store";

/** What to do about missing or damaged archives, in one line. */
export const MISSING_ARCHIVES_FIX = "Copy the files back from a backup (the log's 'tileset archive cannot be read' lines name them), or delete those versions (mapstead tilesets delete --org ORG --slug SLUG --version N; a published one only after another is published, or after mapstead tilesets unpublish --org ORG --slug SLUG)";
/** What to do about missing sprite directories. */
export const MISSING_SPRITES_FIX = "Copy the directories back from a backup (DATA_DIR/sprites/...), or upload the sprite again (the console's style page or PUT /api/v1/orgs/ORG/styles/SLUG/sprite) and publish the style again (mapstead styles publish --org ORG --slug SLUG)";
/** What to do about missing font files. */
export const MISSING_FONTS_FIX = "Copy each font file back from a backup to the path named (DATA_DIR/fonts/...), or add the same font file again (mapstead fonts add --name NAME FILE puts it back)";

export type FileProblem = {
  /** owner/slug@version, owner/slug (draft sprite) or the font name */
  name: string;
  /** relative to DATA_DIR */
  path: string;
  problem: "missing" | "damaged";
  /** a published tileset or style version (its public URLs answer 503), or an installed font */
  published: boolean;
};

export interface FileProblems {
  archives: FileProblem[];
  sprites: FileProblem[];
  fonts: FileProblem[];
}

const LIMIT = 5000;
const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const PMTILES_MAGIC = Buffer.from("PMTiles", "latin1");

/** "missing", "damaged" (its header is not that of its format) or null: the first 16 bytes only. */
function archiveProblem(path: string, format: string | null): "missing" | "damaged" | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    return (err as { code?: string }).code === "ENOENT" ? "missing" : "damaged";
  }
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    const magic = format === "pmtiles" ? PMTILES_MAGIC : SQLITE_MAGIC;
    return n >= magic.length && head.subarray(0, magic.length).equals(magic) ? null : "damaged";
  } catch {
    return "damaged";
  } finally {
    closeSync(fd);
  }
}

/** Every published file DATA_DIR lacks or holds damaged, newest first and at most a few thousand of each kind looked at. */
export function fileProblems(sqlite: Database, dataDir: string): FileProblems {
  const result: FileProblems = { archives: [], sprites: [], fonts: [] };
  try {
    for (const v of sqlite
      .query<{ name: string; path: string; format: string | null; published: number }, []>(
        `SELECT o.slug || '/' || t.slug || '@' || v.version AS name, v.archive_path AS path, v.archive_format AS format,
                t.published_version IS v.version AS published
         FROM tileset_versions v JOIN tilesets t ON t.id = v.tileset_id JOIN orgs o ON o.id = t.org_id
         WHERE v.state = 'ready' AND v.archive_path IS NOT NULL ORDER BY v.id DESC LIMIT ${LIMIT}`,
      )
      .all()) {
      const problem = archiveProblem(join(dataDir, v.path), v.format);
      if (problem) result.archives.push({ name: v.name, path: v.path, problem, published: v.published === 1 });
    }
    const sprites = sqlite
      .query<{ name: string; path: string; published: number }, []>(
        `SELECT o.slug || '/' || s.slug || '@' || sv.version AS name, sv.sprite_path AS path, s.published_version IS sv.version AS published
         FROM style_versions sv JOIN styles s ON s.id = sv.style_id JOIN orgs o ON o.id = s.org_id WHERE sv.sprite_path IS NOT NULL
         UNION ALL
         SELECT o.slug || '/' || s.slug || ' (draft)', s.draft_sprite_path, 0 FROM styles s JOIN orgs o ON o.id = s.org_id WHERE s.draft_sprite_path IS NOT NULL
         LIMIT ${LIMIT}`,
      )
      .all();
    for (const s of sprites)
      if (SPRITE_FILES.some((f) => !existsSync(join(dataDir, s.path, f)))) result.sprites.push({ name: s.name, path: s.path, problem: "missing", published: s.published === 1 });
    for (const f of sqlite.query<{ name: string; path: string }, []>(`SELECT name, file_path AS path FROM fonts WHERE file_path IS NOT NULL LIMIT ${LIMIT}`).all())
      if (!existsSync(join(dataDir, f.path))) result.fonts.push({ name: f.name, path: f.path, problem: "missing", published: true });
  } catch {
    // the database check reports a database that cannot be read
  }
  return result;
}

const listed = (problems: readonly FileProblem[], show: (p: FileProblem) => string) => `${problems.slice(0, 5).map(show).join(", ")}${problems.length > 5 ? ", ..." : ""}`;

/** "2 ready tileset version(s) have no readable archive in DATA_DIR (a/b@1 missing, ...): they answer 503" */
export function archivesWords(problems: readonly FileProblem[]): string {
  return `${problems.length} ready tileset version(s) have no readable archive in DATA_DIR (${listed(problems, (p) => `${p.name}${p.published ? " published" : ""} ${p.problem}`)}): they answer 503`;
}

export function spritesWords(problems: readonly FileProblem[]): string {
  return `${problems.length} sprite(s) of styles are missing from DATA_DIR (${listed(problems, (p) => `${p.name} in ${p.path}`)}): their sprite files answer 503`;
}

export function fontsWords(problems: readonly FileProblem[]): string {
  return `${problems.length} installed font(s) have no file in DATA_DIR (${listed(problems, (p) => `"${p.name}" at ${p.path}`)}): their glyphs answer 503`;
}

/** One health line and one fix for all of them, or null when every file is there. */
export function fileProblemsSummary(p: FileProblems): { detail: string; fix: string } | null {
  const parts: [string, string][] = [];
  if (p.archives.length) parts.push([archivesWords(p.archives), MISSING_ARCHIVES_FIX]);
  if (p.sprites.length) parts.push([spritesWords(p.sprites), MISSING_SPRITES_FIX]);
  if (p.fonts.length) parts.push([fontsWords(p.fonts), MISSING_FONTS_FIX]);
  if (!parts.length) return null;
  return { detail: parts.map((x) => x[0]).join("; "), fix: parts.map((x) => x[1]).join(". ") };
}
