// What a symbol feature wants to show: its text (formatted sections with fonts resolved, transformed)
// and icon, evaluated with the style-spec. Placement decides later where, and whether, it is drawn.
import { Formatted, type SymbolLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "./draw-context";
import type { RenderFeature } from "./features";
import type { SpriteImage } from "./sprite";
import { prop } from "./style-eval";
import type { FontBook, TextSection } from "./text";

/** Replaces {token} with feature properties, as MapLibre does for plain-string text-field and icon-image. */
export function resolveTokens(properties: Record<string, unknown>, text: string): string {
  return text.replace(/{([^{}]+)}/g, (_, key: string) => {
    const v = properties[key];
    return v === undefined || v === null ? "" : String(v);
  });
}

function transform(text: string, mode: unknown): string {
  return mode === "uppercase" ? text.toLocaleUpperCase() : mode === "lowercase" ? text.toLocaleLowerCase() : text;
}

export async function textSections(
  layer: SymbolLayerSpecification,
  f: RenderFeature,
  ctx: DrawContext,
  fonts: FontBook,
): Promise<TextSection[] | null> {
  const raw = layer.layout?.["text-field"];
  if (raw === undefined || raw === "") return null;
  const value = prop(layer, "layout", "text-field", ctx.zoom, f);
  const fontNames = prop(layer, "layout", "text-font", ctx.zoom, f);
  const defaultStack = Array.isArray(fontNames) ? fontNames.map(String) : ["Open Sans Regular", "Arial Unicode MS Regular"];
  const mode = prop(layer, "layout", "text-transform", ctx.zoom, f);
  const plainString = typeof raw === "string";
  const parts: { text: string; scale: number; stack: string[]; color?: unknown; image?: SpriteImage }[] = [];
  if (value instanceof Formatted) {
    for (const s of value.sections) {
      if (s.image) {
        // an image the sprite lacks is left out, as MapLibre leaves it (with a warning)
        const image = ctx.sprite.get(s.image.name);
        if (image) parts.push({ text: "", scale: 1, stack: [], image });
        continue;
      }
      if (!s.text) continue;
      const text = plainString ? resolveTokens(f.properties, s.text) : s.text;
      parts.push({ text, scale: s.scale ?? 1, stack: s.fontStack ? s.fontStack.split(",") : defaultStack, color: s.textColor ?? undefined });
    }
  } else if (value !== null && value !== undefined && value !== "") {
    const text = String(value);
    parts.push({ text: plainString ? resolveTokens(f.properties, text) : text, scale: 1, stack: defaultStack });
  }
  const sections: TextSection[] = [];
  for (const p of parts) {
    if (p.image) {
      sections.push({ text: "", scale: 1, fonts: [], image: p.image });
      continue;
    }
    const text = transform(p.text, mode);
    // A section of spaces or a newline alone still counts: it separates, or breaks, its neighbours.
    if (!text) continue;
    sections.push({ text, scale: p.scale, fonts: await fonts.stack(p.stack), color: p.color });
  }
  return sections.some((s) => s.image || s.text.trim()) ? sections : null;
}

/** Whether text-field holds an ["image", ...] expression anywhere (the render must load the sprite for it). */
export function textFieldHasImages(layer: SymbolLayerSpecification): boolean {
  const has = (v: unknown): boolean => Array.isArray(v) && (v[0] === "image" || v.some(has));
  return has(layer.layout?.["text-field"]);
}

export function iconImage(layer: SymbolLayerSpecification, f: RenderFeature, ctx: DrawContext): SpriteImage | null {
  const raw = layer.layout?.["icon-image"];
  if (raw === undefined || raw === "") return null;
  const value = prop(layer, "layout", "icon-image", ctx.zoom, f, ctx.sprite.names());
  const name = typeof value === "string" ? value : (value as { name?: string } | null)?.name;
  if (!name) return null;
  return ctx.sprite.get(typeof raw === "string" ? resolveTokens(f.properties, name) : name);
}
