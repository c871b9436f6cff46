import { t } from "elysia";

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";

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
  restored: t.Optional(t.Boolean({ description: "true when the font was installed already and this upload (the same file) put back its file, which was missing from DATA_DIR" })),
});

export const UploadQuery = t.Object({
  name: t.Optional(t.String({ maxLength: 512, description: 'Font name; defaults to the font\'s "Family Subfamily"' })),
});
