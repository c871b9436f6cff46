// Glyph ranges for fontstacks. Each (font, range) is built once, lazily, by the SDF generator and kept
// on disk at DATA_DIR/glyphs/<font key>/<start>-<end>.pbf (temp file + rename), where the font key is a
// hash of the font's bytes and the generator version, so a changed font or generator never serves a
// stale range. A fontstack's answer is composed from its fonts' ranges, first font with a glyph wins,
// and hot answers stay in the published-content cache with their ETag (dropped when fonts change).
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../context";
import { AppError, BadRequest, NotFound } from "../errors";
import { buildRangeGlyphs, encodeFontstack, parseFont, rangeName, readEncodedGlyphs, RANGE_SIZE, MAX_CODEPOINT, type EncodedGlyph, type ParsedFont } from "../glyphs";
import type { FontCatalog, FontEntry } from "../domain/fonts/catalog";
import { strongEtag } from "./etag";
import type { PublishedCache, PublishedSlot } from "./published-cache";

/** Bump when the generator's output changes, so ranges cached on disk are rebuilt. */
const GENERATOR_VERSION = 1;
const MAX_FONTS_IN_STACK = 16;
const MAX_FONTSTACK_CHARS = 1024;

export interface GlyphAnswer {
  body: Uint8Array;
  etag: string;
  /** the body gzipped, for clients that take it (about 40 % of the size), and its own ETag */
  gzipped: Uint8Array;
  gzipEtag: string;
}

interface LoadedFont {
  /** hash of the bytes + generator version: the disk cache directory */
  key: string;
  bytes: ArrayBuffer;
  /** parsed on the first range that is not on disk yet */
  parsed: ParsedFont | null;
}

const RANGE_RE = /^(\d{1,7})-(\d{1,7})\.pbf$/;

/** Parses "0-255.pbf" into its start; 400 naming the range otherwise. */
export function parseRange(raw: string): number {
  const m = RANGE_RE.exec(raw);
  const start = m ? Number(m[1]) : NaN;
  const end = m ? Number(m[2]) : NaN;
  if (!m || start % RANGE_SIZE !== 0 || end !== start + RANGE_SIZE - 1 || end > MAX_CODEPOINT)
    throw new BadRequest(
      `Glyph range "${raw.slice(0, 40)}" is invalid: a range is {start}-{end}.pbf with start a multiple of 256 and end = start + 255 (0-255.pbf, 256-511.pbf, ... up to 1113856-1114111.pbf)`,
    );
  return start;
}

/** Splits a comma-separated fontstack into font names (trimmed, empty parts dropped). */
export function parseFontstack(raw: string): string[] {
  if (raw.length > MAX_FONTSTACK_CHARS) throw new BadRequest(`The fontstack is longer than ${MAX_FONTSTACK_CHARS} characters`);
  const names = raw
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  if (!names.length) throw new BadRequest("The fontstack names no font: use comma-separated font names, e.g. \"Noto Sans Regular\"");
  if (names.length > MAX_FONTS_IN_STACK) throw new BadRequest(`A fontstack may name at most ${MAX_FONTS_IN_STACK} fonts`);
  return [...new Set(names)];
}

export class GlyphStore {
  private readonly cacheDir: string;
  /** answers by catalog generation, range and raw fontstack */
  private readonly answers: PublishedSlot<GlyphAnswer>;
  /** one font's records of one range, by font key (its bytes' hash) and range start */
  private readonly fontRanges: PublishedSlot<EncodedGlyph[]>;
  private readonly fonts = new Map<string, Promise<LoadedFont>>();
  private readonly building = new Map<string, Promise<EncodedGlyph[]>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly catalog: FontCatalog,
    published: PublishedCache,
  ) {
    this.cacheDir = join(ctx.config.dataDir, "glyphs");
    this.answers = published.slot("glyphs");
    this.fontRanges = published.slot("font-range");
  }

  /**
   * The glyph PBF of a fontstack and range. `rawStack` is the URL-decoded path segment. Hot answers are
   * found by the raw segments before any parsing (only valid requests are ever stored, under the
   * catalog generation they were built for).
   */
  /** The answer when it is in memory already (no Promise, for the hot path), else undefined. */
  inMemory(rawStack: string, rawRange: string): GlyphAnswer | undefined {
    return this.answers.get(this.catalog.generation, rawRange, rawStack);
  }

  async range(rawStack: string, rawRange: string): Promise<GlyphAnswer> {
    const generation = this.catalog.generation;
    const hit = this.answers.get(generation, rawRange, rawStack);
    if (hit) return hit;
    const start = parseRange(rawRange);
    const names = parseFontstack(rawStack);
    const stackName = names.join(",");

    const fonts = names.map((n) => this.catalog.get(n)).filter((f): f is FontEntry => f !== undefined);
    if (!fonts.length)
      throw new NotFound(`No font of the fontstack "${stackName}" is installed; GET /fonts/v1 lists the installed fonts`, "FONT_NOT_FOUND");

    let glyphs: EncodedGlyph[];
    if (fonts.length === 1) glyphs = await this.fontRange(fonts[0]!, start);
    else {
      // Per-glyph fallback: the first font of the stack that has the codepoint provides it.
      const chosen = new Map<number, EncodedGlyph>();
      for (const font of fonts) for (const g of await this.fontRange(font, start)) if (!chosen.has(g.id)) chosen.set(g.id, g);
      glyphs = [...chosen.values()].sort((a, b) => a.id - b.id);
    }
    const body = encodeFontstack(stackName, rangeName(start), glyphs);
    const etag = strongEtag(body);
    const gzipped = Bun.gzipSync(body as Uint8Array<ArrayBuffer>);
    const answer = { body, etag, gzipped, gzipEtag: `${etag.slice(0, -1)}.gz"` };
    this.answers.set(generation, rawRange, rawStack, answer, body.length + gzipped.length + 128);
    return answer;
  }

  private loadFont(entry: FontEntry): Promise<LoadedFont> {
    let loading = this.fonts.get(entry.path);
    if (!loading) {
      loading = (async () => {
        let bytes: ArrayBuffer;
        try {
          bytes = await Bun.file(entry.path).arrayBuffer();
        } catch (err) {
          throw this.fontUnreadable(entry, err);
        }
        const key = createHash("sha256").update(new Uint8Array(bytes)).update(`generator:${GENERATOR_VERSION}`).digest("hex").slice(0, 24);
        return { key, bytes, parsed: null };
      })();
      loading.catch(() => this.fonts.delete(entry.path));
      this.fonts.set(entry.path, loading);
    }
    return loading;
  }

  /**
   * An installed font whose file is gone from DATA_DIR (deleted by hand, a restore that left it out) is
   * the operator's to fix: the log names the file and how, the client is told the font cannot be read
   * now (503), never an internal error.
   */
  private fontUnreadable(entry: FontEntry, err: unknown): AppError {
    const code = (err as { code?: string } | null)?.code;
    this.ctx.log.error("font file cannot be read", {
      font: entry.name,
      path: entry.path,
      error: err instanceof Error ? err.message : String(err),
      fix: `copy the font file back to ${entry.path} from a backup (mapstead backup keeps it), or add the same file again: mapstead fonts add --name "${entry.name}" FILE`,
    });
    return new AppError(503, "STORAGE_UNAVAILABLE", `Font "${entry.name}" cannot be read: its file is ${code === "ENOENT" ? "missing" : "unreadable"} on this server (the server's log names the file and the fix)`);
  }

  /** One font's glyph records for a range: memory, else disk, else built (once) and written to disk. */
  private async fontRange(entry: FontEntry, start: number): Promise<EncodedGlyph[]> {
    const font = await this.loadFont(entry);
    const cached = this.fontRanges.get(font.key, start);
    if (cached) return cached;
    const key = `${font.key}:${start}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.readOrBuild(entry, font, start).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  private async readOrBuild(entry: FontEntry, font: LoadedFont, start: number): Promise<EncodedGlyph[]> {
    const dir = join(this.cacheDir, font.key);
    const path = join(dir, `${rangeName(start)}.pbf`);
    const file = Bun.file(path);
    if (await file.exists()) {
      try {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const glyphs = readEncodedGlyphs(bytes);
        this.fontRanges.set(font.key, start, "", glyphs, bytes.length + 64);
        return glyphs;
      } catch (err) {
        this.ctx.log.warn("glyph cache file unreadable; rebuilding it", { font: entry.name, range: rangeName(start), error: String(err) });
      }
    }
    font.parsed ??= parseFont(font.bytes);
    const t0 = performance.now();
    const { glyphs, skipped } = buildRangeGlyphs(font.parsed, start);
    if (skipped.length) this.ctx.log.warn("glyphs skipped: outline unreadable", { font: entry.name, range: rangeName(start), codepoints: skipped.slice(0, 20) });
    const pbf = encodeFontstack(entry.name, rangeName(start), glyphs);
    this.writeAtomically(dir, path, pbf);
    this.ctx.log.debug("glyph range built", { font: entry.name, range: rangeName(start), glyphs: glyphs.length, ms: Math.round(performance.now() - t0) });
    // Keep records pointing into the compact encoded file rather than the per-glyph buffers.
    const compact = readEncodedGlyphs(pbf);
    this.fontRanges.set(font.key, start, "", compact, pbf.length + 64);
    return compact;
  }

  private writeAtomically(dir: string, path: string, data: Uint8Array): void {
    const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(tmp, data);
      renameSync(tmp, path);
    } catch (err) {
      // The range is still served from memory; the next process builds it again.
      rmSync(tmp, { force: true });
      this.ctx.log.warn("could not write glyph cache file", { error: String(err) });
    }
  }

}
