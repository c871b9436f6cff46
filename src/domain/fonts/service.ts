// Installing fonts (admin uploads, `mapstead fonts add`) and listing the catalog. Plain TypeScript.
// An upload must be a TrueType or OpenType font that opentype.js reads and whose outlines render; it
// is stored content-addressed under DATA_DIR/fonts/ (temp file + rename) before its row is inserted.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../../context";
import { BadRequest, Conflict, PayloadTooLarge, UnsupportedMediaType, Unprocessable } from "../../errors";
import { buildRangeGlyphs, FontParseError, parseFont, RANGE_SIZE, type ParsedFont } from "../../glyphs";
import type { FontCatalog, FontEntry } from "./catalog";
import type { ChangePublisher } from "../changes/types";

export const MAX_FONT_BYTES = 50 * 1024 * 1024;
const MAX_NAME_CHARS = 128;

export interface FontInfo {
  name: string;
  builtin: boolean;
  created_at: string;
}

export interface InstalledFont extends FontInfo {
  /** Unicode codepoints the font maps to a glyph */
  codepoints: number;
  /** the font was installed already and these same bytes put back its missing file */
  restored?: boolean;
}

type Kind = "ttf" | "otf";

/** Tells TrueType/OpenType from other files by their first bytes; 415 naming what it is otherwise. */
export function sniffFont(bytes: Uint8Array): Kind {
  const tag = bytes.length >= 4 ? String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!) : "";
  if (tag === "\x00\x01\x00\x00" || tag === "true") return "ttf";
  if (tag === "OTTO") return "otf";
  const what =
    tag === "wOFF" || tag === "wOF2"
      ? "a WOFF web font (convert it to TTF or OTF first)"
      : tag === "ttcf"
        ? "a font collection (TTC); upload the single font you want as TTF or OTF"
        : "not a TrueType or OpenType font";
  throw new UnsupportedMediaType(`The uploaded file is ${what}; upload a .ttf or .otf file`);
}

/** Every table of the sfnt directory must lie inside the file (catches truncated uploads early). */
function checkTableDirectory(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const numTables = bytes.length >= 12 ? view.getUint16(4) : 0;
  if (numTables === 0 || 12 + numTables * 16 > bytes.length)
    throw new Unprocessable("INVALID_SOURCE_DATA", "The uploaded file could not be read as a font: its table directory is missing or truncated");
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
    const end = view.getUint32(at + 8) + view.getUint32(at + 12);
    if (end > bytes.length)
      throw new Unprocessable("INVALID_SOURCE_DATA", `The uploaded file could not be read as a font: table '${tag.trim()}' ends past the end of the file (truncated upload?)`);
  }
}

/** A usable font name: it becomes a fontstack entry (comma-separated, in URL paths). */
export function validateFontName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, " ");
  if (!name) throw new BadRequest("name: the font name is empty");
  if (name.length > MAX_NAME_CHARS) throw new BadRequest(`name: the font name is longer than ${MAX_NAME_CHARS} characters`);
  if (/[,/\\\p{Cc}]/u.test(name)) throw new BadRequest("name: a font name may not contain commas, slashes or control characters");
  return name;
}

/** "Family Subfamily" from the name table, preferring the typographic names (IDs 16 and 17). */
export function defaultFontName(parsed: ParsedFont): string | undefined {
  const f = parsed.font;
  const family = f.getEnglishName("preferredFamily") || f.getEnglishName("fontFamily");
  const sub = f.getEnglishName("preferredSubfamily") || f.getEnglishName("fontSubfamily");
  if (!family) return f.getEnglishName("fullName") || undefined;
  return sub ? `${family} ${sub}` : family;
}

function info(e: FontEntry): FontInfo {
  return { name: e.name, builtin: e.builtin, created_at: new Date(e.createdAt).toISOString() };
}

export function listFonts(catalog: FontCatalog): FontInfo[] {
  return catalog
    .list()
    .map(info)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Writes a font file under DATA_DIR/fonts (temp file + rename, so no reader sees half of it). */
function writeFontFile(dataDir: string, absolute: string, bytes: Uint8Array): void {
  mkdirSync(join(dataDir, "fonts"), { recursive: true });
  const tmp = `${absolute}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, absolute);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Validates, stores and records a font; the catalog (and every cache keyed on it) is refreshed. */
export function installFont(ctx: AppContext, catalog: FontCatalog, changes: ChangePublisher, bytes: Uint8Array, opts: { name?: string } = {}): InstalledFont {
  if (bytes.length > MAX_FONT_BYTES) throw new PayloadTooLarge(`A font may be at most ${MAX_FONT_BYTES / 1024 / 1024} MiB; this one is ${bytes.length} bytes`);
  if (!bytes.length) throw new BadRequest("The request has no font file: send the TTF/OTF bytes as the body or as the multipart field 'file'");
  const kind = sniffFont(bytes);
  checkTableDirectory(bytes);
  const requested = opts.name !== undefined ? validateFontName(opts.name) : undefined;

  let parsed: ParsedFont;
  try {
    parsed = parseFont(bytes.slice().buffer as ArrayBuffer);
  } catch (err) {
    const why = err instanceof FontParseError ? err.message : String(err);
    throw new Unprocessable("INVALID_SOURCE_DATA", `The uploaded file could not be read as a font: ${why}`);
  }
  const codepoints = Object.keys(parsed.cmap).map(Number).filter((cp) => parsed.cmap[cp]! > 0);
  // Render the first range with glyphs: outlines opentype.js cannot read are refused now, not at map time.
  let first = Infinity;
  for (const cp of codepoints) if (cp >= 32 && cp < first) first = cp;
  if (first === Infinity) first = codepoints[0] ?? 0;
  const trial = buildRangeGlyphs(parsed, Math.floor(first / RANGE_SIZE) * RANGE_SIZE);
  if (trial.glyphs.length === 0)
    throw new Unprocessable("INVALID_SOURCE_DATA", "The uploaded font's glyph outlines could not be read", { codepoints: trial.skipped.slice(0, 20) });

  let name = requested;
  if (name === undefined) {
    const fromFont = defaultFontName(parsed);
    if (!fromFont) throw new BadRequest("name: the font has no family name; give one with the 'name' parameter");
    name = validateFontName(fromFont);
  }
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
  const relative = join("fonts", `${digest}.${kind}`);
  const absolute = join(ctx.config.dataDir, relative);
  const fresh = !existsSync(absolute);
  const installed = catalog.get(name);
  // The same bytes as an installed font whose file is gone from DATA_DIR: put the file back (what an
  // operator naturally tries; the name stays theirs, nothing else changes). Any other clash is refused.
  if (installed && !(installed.path === absolute && fresh)) throw new Conflict(`A font named "${name}" is already installed; choose another name`);
  if (installed) {
    writeFontFile(ctx.config.dataDir, absolute, bytes);
    ctx.log.info("font file restored", { font: name, path: absolute });
    return { name, builtin: false, created_at: new Date(installed.createdAt).toISOString(), codepoints: codepoints.length, restored: true };
  }
  if (fresh) writeFontFile(ctx.config.dataDir, absolute, bytes);
  const createdAt = Date.now();
  try {
    ctx.sqlite.transaction(() => {
      ctx.sqlite.query("INSERT INTO fonts (name, file_path, builtin, created_at) VALUES (?, ?, 0, ?)").run(name, relative, createdAt);
      changes.publish({ kind: "fonts" });
    })();
  } catch (err) {
    if (fresh) rmSync(absolute, { force: true });
    if (String(err).includes("UNIQUE")) throw new Conflict(`A font named "${name}" is already installed; choose another name`);
    throw err;
  }
  return { name, builtin: false, created_at: new Date(createdAt).toISOString(), codepoints: codepoints.length };
}
