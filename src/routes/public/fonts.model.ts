// Path parameters and answers of the public font routes.
import { t } from "elysia";

export { ErrorEnvelope } from "../management/fonts.model";

export const FontNames = t.Array(t.String(), { description: "Installed font names, usable in a style's text-font and in fontstacks" });

export const GlyphParams = t.Object({
  fontstack: t.String({ description: 'Comma-separated font names, e.g. "Noto Sans Regular,Noto Sans Bold"; per-glyph fallback in this order' }),
  range: t.String({ description: "256-codepoint range: {start}-{end}.pbf with start a multiple of 256 and end = start + 255, up to 1114111 (U+10FFFF)", examples: ["0-255.pbf"] }),
});

