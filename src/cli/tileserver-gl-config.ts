// Reads a TileServer GL config.json the way TileServer GL resolves it: `options.paths.root` relative to
// the config file's folder, the other paths relative to root, data files under paths.mbtiles or
// paths.pmtiles, style files under paths.styles, a local sprite under paths.sprites (with its
// `{styleJsonFolder}` and `{style}` placeholders). Reads files, writes nothing: a problem of one data
// entry or style is kept on that item, so the others can still be imported.
import { readFileSync } from "node:fs";
import { JsonTextError, parseJsonText } from "../json-text";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { UsageError } from "./args";
import { inputFileProblem } from "./input-file";

export interface TileserverData {
  id: string;
  slug: string;
  /** absolute path of the archive */
  file: string;
  format: "mbtiles" | "pmtiles";
  problem: string | null;
}

/** A local sprite: NAME.json + NAME.png, and NAME@2x.json + NAME@2x.png where they exist. */
export interface LocalSprite {
  /** the path without extension, as the style names it once resolved */
  base: string;
  json: Uint8Array;
  png: Uint8Array;
  json2x: Uint8Array | null;
  png2x: Uint8Array | null;
}

export interface TileserverStyle {
  id: string;
  slug: string;
  file: string;
  json: Record<string, unknown> | null;
  sprite: LocalSprite | null;
  problem: string | null;
}

export interface TileserverConfig {
  file: string;
  data: TileserverData[];
  styles: TileserverStyle[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** A valid Mapstead slug from a TileServer GL id ("OSM_Zurich" -> "osm-zurich"), unique among `taken`. */
export function slugFromId(id: string, taken: Set<string>): string {
  const base =
    id
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 59)
      .replace(/-+$/, "") || "imported";
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

/** `contents`: the file is there but is not a JSON object (exit 1 for the config, not a usage error). */
function readJson(file: string, what: string): { json: Record<string, unknown> } | { problem: string; contents?: true } {
  const missing = inputFileProblem(file);
  if (missing) return { problem: `${what}: ${missing}` };
  try {
    const parsed: unknown = parseJsonText(readFileSync(file, "utf8"), file);
    return isObject(parsed) ? { json: parsed } : { problem: `${what}: ${file} holds JSON, but not an object`, contents: true };
  } catch (err) {
    if (!(err instanceof JsonTextError)) throw err;
    return { problem: `${what}: ${err.message}; fix the file`, contents: true };
  }
}

export function readTileserverConfig(configFile: string): TileserverConfig {
  const read = readJson(configFile, "config");
  if ("problem" in read) throw read.contents ? new JsonTextError(read.problem) : new UsageError(read.problem);
  const config = read.json;
  const paths = isObject(config.options) && isObject(config.options.paths) ? config.options.paths : {};
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const root = resolve(dirname(resolve(configFile)), str(paths.root));
  const under = (key: string) => resolve(root, str(paths[key]));
  if (config.data !== undefined && !isObject(config.data)) throw new UsageError(`${configFile}: "data" must be an object of id -> {"mbtiles": FILE} or {"pmtiles": FILE}`);
  if (config.styles !== undefined && !isObject(config.styles)) throw new UsageError(`${configFile}: "styles" must be an object of id -> {"style": FILE}`);

  const tilesetSlugs = new Set<string>();
  const data: TileserverData[] = Object.entries((config.data ?? {}) as Record<string, unknown>).map(([id, entry]) => {
    const slug = slugFromId(id, tilesetSlugs);
    const e = isObject(entry) ? entry : {};
    const format = typeof e.mbtiles === "string" ? "mbtiles" : typeof e.pmtiles === "string" ? "pmtiles" : null;
    if (!format) return { id, slug, file: "", format: "mbtiles", problem: `data '${id}': expected {"mbtiles": FILE} or {"pmtiles": FILE} in ${configFile}` } as TileserverData;
    const name = e[format] as string;
    if (/^[a-z]+:\/\//i.test(name)) return { id, slug, file: name, format, problem: `data '${id}': ${name} is remote; download it and name the local file in ${configFile}` };
    const file = resolve(under(format), name);
    const missing = inputFileProblem(file);
    return { id, slug, file, format, problem: missing ? `data '${id}': ${missing} (paths.${format} is ${under(format)}); fix the path in ${configFile}` : null };
  });

  const styleSlugs = new Set<string>();
  const styles: TileserverStyle[] = Object.entries((config.styles ?? {}) as Record<string, unknown>).map(([id, entry]) => {
    const slug = slugFromId(id, styleSlugs);
    const e = isObject(entry) ? entry : {};
    const item: TileserverStyle = { id, slug, file: "", json: null, sprite: null, problem: null };
    if (typeof e.style !== "string") return { ...item, problem: `style '${id}': expected {"style": FILE} in ${configFile}` };
    if (/^[a-z]+:\/\//i.test(e.style)) return { ...item, problem: `style '${id}': ${e.style} is remote; download it and name the local file in ${configFile}` };
    item.file = resolve(under("styles"), e.style);
    const style = readJson(item.file, `style '${id}'`);
    if ("problem" in style) return { ...item, problem: style.problem };
    item.json = style.json;
    try {
      item.sprite = localSprite(style.json.sprite, item.file, under("sprites"));
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      item.problem = `style '${id}': ${err.message}`;
    }
    return item;
  });
  return { file: configFile, data, styles };
}

/**
 * The sprite a style names on TileServer GL's disk, read; null for none, or one on another host
 * (http(s)://, kept as it is). TileServer GL replaces `{styleJsonFolder}` with the style file's folder
 * and `{style}` with its name, and reads a relative path under paths.sprites.
 */
function localSprite(sprite: unknown, styleFile: string, spritesDir: string): LocalSprite | null {
  if (sprite === undefined || (typeof sprite === "string" && /^(https?|mapstead):\/\//i.test(sprite))) return null;
  if (typeof sprite !== "string") throw new UsageError(`"sprite" must be one path (several sprites are not imported); use one sprite sheet`);
  const named = sprite.replace("{styleJsonFolder}", dirname(styleFile)).replace("{style}", basename(styleFile).replace(/\.json$/i, ""));
  const base = isAbsolute(named) ? named : join(spritesDir, named);
  const file = (suffix: string, required: boolean): Uint8Array | null => {
    const problem = inputFileProblem(base + suffix);
    if (problem && required) throw new UsageError(`its sprite "${sprite}" needs ${base}${suffix}, but ${problem}; put the sprite's .json and .png there (paths.sprites is ${spritesDir})`);
    return problem ? null : new Uint8Array(readFileSync(base + suffix));
  };
  const json = file(".json", true)!;
  const png = file(".png", true)!;
  const json2x = file("@2x.json", false);
  const png2x = file("@2x.png", false);
  if (!json2x !== !png2x) throw new UsageError(`its sprite has ${json2x ? `${base}@2x.json but no @2x.png` : `${base}@2x.png but no @2x.json`}; add the other or remove both`);
  return { base, json, png, json2x, png2x };
}
