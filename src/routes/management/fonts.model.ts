import { t } from "elysia";

export const ErrorEnvelope = t.Object({
  error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }),
});

export const FontNames = t.Array(t.String(), { description: "Installed font names, usable in a style's text-font and in fontstacks" });

export const GlyphParams = t.Object({
  fontstack: t.String({ description: 'Comma-separated font names, e.g. "Noto Sans Regular,Noto Sans Bold"; per-glyph fallback in this order' }),
  range: t.String({ description: "256-codepoint range: {start}-{end}.pbf with start a multiple of 256 and end = start + 255, up to 65535", examples: ["0-255.pbf"] }),
});

export const FontInfo = t.Object({
  name: t.String(),
  builtin: t.Boolean({ description: "embedded in the binary" }),
  created_at: t.String({ format: "date-time" }),
});

export const FontList = t.Object({ fonts: t.Array(FontInfo) });

export const InstalledFont = t.Object({
  name: t.String(),
  builtin: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  codepoints: t.Integer({ description: "Unicode codepoints the font has glyphs for" }),
});

export const UploadQuery = t.Object({
  name: t.Optional(t.String({ maxLength: 512, description: 'Font name; defaults to the font\'s "Family Subfamily"' })),
});
