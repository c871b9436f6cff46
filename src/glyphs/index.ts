// Framework-free SDF glyph generation for MapLibre GL glyph PBFs.
export { parseFont, buildRangeGlyphs, buildRangePbf, rangeName, FontParseError, RANGE_SIZE, MAX_CODEPOINT, type ParsedFont } from "./range";
export { encodeFontstack, readEncodedGlyphs, type EncodedGlyph } from "./pbf";
export { GLYPH_SIZE_PX, GLYPH_BUFFER_PX, SDF_RADIUS_PX, SDF_CUTOFF } from "./sdf";
