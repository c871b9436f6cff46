// Reads the SVG icons out of an uploaded zip without trusting it: entry names are checked for path
// tricks, declared sizes are capped before anything is inflated (fflate never writes past the declared
// size, so a lying header cannot blow up memory), and the entry count is limited.
import { unzipSync } from "fflate";
import { MAX_ICONS, SpriteInputError, iconName, type SvgIcon } from "./build";
import { MAX_SVG_BYTES } from "./svg-safety";

const MAX_ZIP_ENTRIES = 2000;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

/** Operating-system clutter that zip tools add; skipped silently. */
const isClutter = (name: string) => name.startsWith("__MACOSX/") || name.split("/").some((p) => p.startsWith(".")) || name.endsWith("/");

export function svgIconsFromZip(zip: Uint8Array): SvgIcon[] {
  if (zip.length < 22 || zip[0] !== 0x50 || zip[1] !== 0x4b) throw new SpriteInputError("the upload is not a zip file");
  let entries = 0;
  let total = 0;
  const names: string[] = [];
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, {
      filter(file) {
        if (++entries > MAX_ZIP_ENTRIES) throw new SpriteInputError(`the zip holds more than ${MAX_ZIP_ENTRIES} entries`);
        const name = file.name;
        if (name.includes("\\") || name.startsWith("/") || /^[a-z]:/i.test(name) || name.split("/").includes("..") || name.includes("\u0000"))
          throw new SpriteInputError(`zip entry '${name.slice(0, 100)}' has an unsafe path`);
        if (isClutter(name)) return false;
        if (!/\.svg$/i.test(name)) throw new SpriteInputError(`zip entry '${name.slice(0, 100)}' is not an .svg file; a sprite zip holds SVG icons only`);
        if (file.originalSize > MAX_SVG_BYTES) throw new SpriteInputError(`zip entry '${name}' is ${file.originalSize} bytes, over the ${MAX_SVG_BYTES} byte limit per SVG`);
        if (file.compression !== 0 && file.compression !== 8) throw new SpriteInputError(`zip entry '${name}' uses an unsupported compression method`);
        total += file.originalSize;
        if (total > MAX_TOTAL_BYTES) throw new SpriteInputError(`the zip unpacks to more than ${MAX_TOTAL_BYTES / 1024 / 1024} MiB`);
        names.push(name);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof SpriteInputError) throw err;
    throw new SpriteInputError(`the zip could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  const icons = names.map((name) => ({ name: iconName(name), bytes: files[name]! }));
  if (icons.length === 0) throw new SpriteInputError("the zip holds no .svg files");
  if (icons.length > MAX_ICONS) throw new SpriteInputError(`the zip holds ${icons.length} icons; the limit is ${MAX_ICONS} per sprite`);
  return icons;
}
