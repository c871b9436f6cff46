// Rewrites a TileServer GL style into one Mapstead validates: what only TileServer GL understands
// (mbtiles:// and pmtiles:// data ids, its glyph folder, a sprite on its disk) becomes the mapstead://
// reference of what the import brings along, and font stacks no installed font covers get a fallback.
// Pure: it reads no files and writes nothing, so the dry run and the import share it.
import { GLYPHS_REF, MAPLIBRE_DEFAULT_FONTS, fontStacksUsed } from "../domain/styles/references";

export interface StyleRewrite {
  style: Record<string, unknown>;
  /** "what: before -> after", for the summary */
  rewrites: string[];
  /** one line per font stack that got a fallback */
  fallbacks: string[];
  /** user-caused problems (an unknown data id): the style must not be created while any is here */
  problems: string[];
  /** the TileServer GL data ids its sources use */
  dataIds: string[];
}

export interface RewriteInput {
  org: string;
  /** TileServer GL data id -> the tileset's slug and, where it is to be pinned, its version ("@1") */
  tilesets: Map<string, string>;
  /** data file name (e.g. "zurich.mbtiles") -> data id, for sources that name the file instead of the id */
  dataIdByFile: Map<string, string>;
  /** the mapstead:// sprite reference when the style's sprite is imported with it */
  sprite: string | null;
  installedFonts: Set<string>;
  /** the fallback the operator chose (--font-fallback); else the closest built-in Noto Sans face */
  fontFallback: string | null;
}

const TILESERVER_SCHEME = /^(mbtiles|pmtiles):\/\/(.*)$/;

/** The data id a TileServer GL source URL names: `mbtiles://{id}`, `mbtiles://id`, or its file. */
function dataIdOf(url: string, input: RewriteInput): string | null {
  const m = TILESERVER_SCHEME.exec(url);
  if (!m) return null;
  const name = m[2]!.replace(/^\{(.*)\}$/, "$1");
  if (input.tilesets.has(name)) return name;
  return input.dataIdByFile.get(name.replace(/^.*\//, "")) ?? name;
}

/**
 * The installed face nearest a stack's weight and slant: Bold for bold-ish stacks, Italic for slanted
 * ones, else Regular (the built-in Noto Sans has these three; a Bold Italic added later is used too).
 */
export function closestNotoSans(stack: string[], installed: Set<string>): string {
  const words = stack.join(" ");
  const bold = /bold|black|heavy|semi ?bold|demi/i.test(words);
  const italic = /italic|oblique/i.test(words);
  const wanted = [bold && italic ? "Noto Sans Bold Italic" : null, bold ? "Noto Sans Bold" : null, italic ? "Noto Sans Italic" : null, "Noto Sans Regular"];
  return wanted.find((f): f is string => f !== null && installed.has(f)) ?? "Noto Sans Regular";
}

export function rewriteTileserverStyle(original: Record<string, unknown>, input: RewriteInput): StyleRewrite {
  const style = structuredClone(original);
  const out: StyleRewrite = { style, rewrites: [], fallbacks: [], problems: [], dataIds: [] };
  const known = () => [...input.tilesets.keys()].join(", ") || "none";

  const sources = style.sources && typeof style.sources === "object" ? (style.sources as Record<string, Record<string, unknown>>) : {};
  for (const [id, source] of Object.entries(sources)) {
    if (!source || typeof source !== "object" || typeof source.url !== "string") continue;
    const dataId = dataIdOf(source.url, input);
    if (dataId === null) continue;
    const slug = input.tilesets.get(dataId);
    out.dataIds.push(dataId);
    if (slug === undefined) {
      out.problems.push(`source '${id}' uses ${source.url}, but the config's "data" has no id '${dataId}' (it has: ${known()}): add it to "data" or point the source at one of those`);
      continue;
    }
    const url = `mapstead://tilesets/${input.org}/${slug}`;
    out.rewrites.push(`sources.${id}.url: ${source.url} -> ${url}`);
    source.url = url;
  }

  const stacks = fontStacksUsed(style);
  if (style.glyphs !== GLYPHS_REF && (style.glyphs !== undefined || stacks.length)) {
    out.rewrites.push(`glyphs: ${style.glyphs === undefined ? "(none)" : String(style.glyphs)} -> ${GLYPHS_REF}`);
    style.glyphs = GLYPHS_REF;
  }

  if (input.sprite !== null) {
    out.rewrites.push(`sprite: ${JSON.stringify(style.sprite)} -> ${input.sprite}`);
    style.sprite = input.sprite;
  }

  // fontStacksUsed hands back the style's own arrays, so a fallback is appended in place; one array met
  // twice (a stack in text-font and a format section) gets it once.
  const done = new Set<string[]>();
  for (const { path, stacks: found, isDefault } of stacks) {
    for (const stack of found) {
      if (done.has(stack) || stack.some((f) => input.installedFonts.has(f))) continue;
      done.add(stack);
      const fallback = input.fontFallback ?? closestNotoSans(stack, input.installedFonts);
      const before = stack.join(", ");
      if (isDefault) {
        // No text-font: MapLibre's default stack (a shared constant) is written out with the fallback.
        const layer = (style.layers as Record<string, unknown>[])[Number(/^layers\[(\d+)\]/.exec(path)![1])]!;
        (layer.layout as Record<string, unknown>)["text-font"] = [...MAPLIBRE_DEFAULT_FONTS, fallback];
      } else stack.push(fallback);
      out.fallbacks.push(`${path}: [${before}] is not installed; drawn in ${fallback}; for the exact look install the real font: mapstead fonts add FILE.ttf|.otf --name "${stack[0]}"`);
    }
  }
  return out;
}
