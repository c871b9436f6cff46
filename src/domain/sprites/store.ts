// Sprite files on disk under DATA_DIR/sprites/{styleId}/: one directory per uploaded draft sprite
// (replaced wholesale on every upload) and one per published style version (v{n}-{random}, hard links to the
// draft's files, so a snapshot costs no space and later uploads never touch it). Directories are
// written under a temporary name and renamed into place, so a reader never sees half a sprite.
import { existsSync, linkSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { SpriteSet } from "../../sprites/build";

export const SPRITE_FILES = ["sprite.json", "sprite.png", "sprite@2x.json", "sprite@2x.png"] as const;
export type SpriteFile = (typeof SPRITE_FILES)[number];

export const isSpriteFile = (name: string): name is SpriteFile => (SPRITE_FILES as readonly string[]).includes(name);

export function createSpriteStore(dataDir: string) {
  const abs = (rel: string) => join(dataDir, rel);
  const styleDir = (styleId: number) => join("sprites", String(styleId));

  function place(rel: string, fill: (tmpAbs: string) => void): string {
    const parent = abs(rel.slice(0, rel.lastIndexOf("/")));
    mkdirSync(parent, { recursive: true });
    const tmp = join(parent, `.tmp-${randomBytes(6).toString("hex")}`);
    mkdirSync(tmp);
    try {
      fill(tmp);
      renameSync(tmp, abs(rel));
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
    return rel;
  }

  return {
    /** Writes a new draft sprite directory and returns its path relative to DATA_DIR. */
    writeDraft(styleId: number, set: SpriteSet): string {
      const rel = `${styleDir(styleId)}/draft-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
      return place(rel, (tmp) => {
        writeFileSync(join(tmp, "sprite.json"), JSON.stringify(set["1x"].index));
        writeFileSync(join(tmp, "sprite.png"), set["1x"].png);
        writeFileSync(join(tmp, "sprite@2x.json"), JSON.stringify(set["2x"].index));
        writeFileSync(join(tmp, "sprite@2x.png"), set["2x"].png);
      });
    },

    /** Freezes the draft sprite as the sprite of a style version. */
    snapshot(styleId: number, version: number, draftRel: string): string {
      // A unique name: two processes publishing at once must never share (or delete) one directory.
      const rel = `${styleDir(styleId)}/v${version}-${randomBytes(4).toString("hex")}`;
      return place(rel, (tmp) => {
        for (const f of SPRITE_FILES) {
          try {
            linkSync(join(abs(draftRel), f), join(tmp, f));
          } catch {
            copyFileSync(join(abs(draftRel), f), join(tmp, f));
          }
        }
      });
    },

    path(rel: string, file: SpriteFile): string {
      return join(abs(rel), file);
    },

    remove(rel: string | null | undefined): void {
      if (rel) rmSync(abs(rel), { recursive: true, force: true });
    },

    removeStyle(styleId: number): void {
      rmSync(abs(styleDir(styleId)), { recursive: true, force: true });
    },

    /** Draft directories other than the current one: left behind by a crash between write and commit. */
    strayDrafts(styleId: number, current: string | null): string[] {
      const dir = abs(styleDir(styleId));
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .filter((n) => n.startsWith("draft-") || n.startsWith(".tmp-"))
        .map((n) => `${styleDir(styleId)}/${n}`)
        .filter((rel) => rel !== current);
    },
  };
}

export type SpriteStore = ReturnType<typeof createSpriteStore>;
