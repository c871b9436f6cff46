// Which font names a style may use in text-font when its glyphs point at mapstead://fonts.
import type { AppContext } from "../../context";

/** Embedded in the binary, always present. */
const BUILTIN = ["Noto Sans Regular", "Noto Sans Bold", "Noto Sans Italic"];

export function installedFonts(ctx: AppContext): Set<string> {
  const rows = ctx.sqlite.query<{ name: string }, []>("SELECT name FROM fonts").all();
  return new Set([...BUILTIN, ...rows.map((r) => r.name)]);
}
