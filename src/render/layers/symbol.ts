// symbol: labels and icons. Placement runs first over all symbol layers, top layer first and by
// symbol-sort-key within a layer (as MapLibre's placement), so labels never overlap unless a style
// allows it; drawing then happens in style order: a layer's icons, then its text halos, then its text.
import { Color, type LayerSpecification, type SymbolLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { PathCommand } from "opentype.js";
import { CollisionIndex, type CollisionBox } from "../collision";
import type { DrawContext } from "../draw-context";
import type { RenderFeature } from "../features";
import { BLUR_SPREAD, maskable } from "../glyph-masks";
import { blurFilter } from "../blur-filter";
import { glyphsAlongLine, lineAnchors } from "../line-label";
import { labelPoint } from "../polylabel";
import type { SpriteImage } from "../sprite";
import { num, passesFilter, prop, straightColor, svgColor } from "../style-eval";
import { iconImage, textSections } from "../symbol-layout";
import { matrix, n, type MaskGlyph } from "../svg";
import { ONE_EM, anchorAlignment, shapeText, type FontBook, type LoadedFont, type Shaping, type TextSection } from "../text";
import { layoutZoom, type Affine } from "../view";

interface PlacedGlyph {
  font: LoadedFont;
  glyphIndex: number;
  /** glyph outline units -> screen px */
  transform: Affine;
  /** outline units per screen px, for halo stroke widths */
  unitsPerPx: number;
  color: unknown;
}

/** A sprite image drawn with its CSS size at (0,0) mapped by the transform: an icon, or an image inside text. */
interface PlacedImage {
  image: SpriteImage;
  transform: Affine;
}

interface PlacedSymbol {
  feature: RenderFeature;
  glyphs: PlacedGlyph[];
  /** inline images of the text (format's image sections) */
  images: PlacedImage[];
  icon: PlacedImage | null;
}

export type Placements = Map<LayerSpecification, PlacedSymbol[]>;

type Anchor = { kind: "point"; x: number; y: number } | { kind: "line"; glyphs: NonNullable<ReturnType<typeof glyphsAlongLine>> };

export async function placeSymbols(
  layers: LayerSpecification[],
  ctx: DrawContext,
  fonts: FontBook,
  checkAborted: () => void,
): Promise<Placements> {
  const placements: Placements = new Map();
  const index = new CollisionIndex(ctx.cam.view.width, ctx.cam.view.height);
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    if (layer.type !== "symbol") continue;
    checkAborted();
    placements.set(layer, await placeLayer(layer, ctx, fonts, index));
  }
  return placements;
}

async function placeLayer(layer: SymbolLayerSpecification, ctx: DrawContext, fonts: FontBook, index: CollisionIndex): Promise<PlacedSymbol[]> {
  const { zoom } = ctx;
  const { width, height } = ctx.cam.view;
  const features = ctx.features(layer).filter((f) => passesFilter(layer, zoom, f));
  const keyed = features.map((f, i) => ({ f, i, k: Number(prop(layer, "layout", "symbol-sort-key", zoom, f)) || 0 }));
  keyed.sort((a, b) => a.k - b.k || a.i - b.i);
  const placement = String(prop(layer, "layout", "symbol-placement", zoom));
  const textAllowOverlap = prop(layer, "layout", "text-allow-overlap", zoom) === true;
  const iconAllowOverlap = prop(layer, "layout", "icon-allow-overlap", zoom) === true;
  const textIgnore = prop(layer, "layout", "text-ignore-placement", zoom) === true;
  const iconIgnore = prop(layer, "layout", "icon-ignore-placement", zoom) === true;
  const textOptional = prop(layer, "layout", "text-optional", zoom) === true;
  const iconOptional = prop(layer, "layout", "icon-optional", zoom) === true;
  const textPadding = num(layer, "layout", "text-padding", zoom);
  // MapLibre lays symbols out at the tile's whole zoom and shows the tile scaled to the view's zoom, so
  // on screen the spacing grows with the fraction (up to twice at x.99), and halves below zoom 0
  const tileScale = 2 ** (zoom - layoutZoom(zoom));
  const spacing = (num(layer, "layout", "symbol-spacing", zoom) || 250) * tileScale;
  const maxAngle = (num(layer, "layout", "text-max-angle", zoom) * Math.PI) / 180;
  const placed: PlacedSymbol[] = [];
  for (const { f } of keyed) {
    const sections = await textSections(layer, f, ctx, fonts);
    const icon = iconImage(layer, f, ctx);
    if (!sections && !icon) continue;
    const size = num(layer, "layout", "text-size", zoom, f);
    const scale = size / ONE_EM;
    const alongLine = placement !== "point" && f.type !== 1;
    // one shaping per text anchor to try (several with text-variable-anchor), the first that fits wins
    const shapings = sections && size > 0 ? shapeCandidates(layer, f, zoom, sections, alongLine) : [];
    for (const anchor of anchorsOf(f, placement, shapings[0] ?? null, scale, spacing, tileScale, maxAngle, width, height)) {
      if (anchor.kind === "point" && (anchor.x < -width || anchor.y < -height || anchor.x > 2 * width || anchor.y > 2 * height)) continue;
      const texts = shapings.map((shaping) => layoutText(layer, f, ctx, anchor, shaping, scale, sections!, textPadding));
      const fitting = textAllowOverlap ? texts[0] : texts.find((t) => index.fits(t.boxes));
      const text = fitting ?? texts[0] ?? null;
      const chosen = fitting ? shapings[texts.indexOf(fitting)] : shapings[0];
      const iconDraw = icon && anchor.kind === "point" ? layoutIcon(layer, f, ctx, anchor, icon, chosen ? { shaping: chosen, scale } : null) : null;
      const textFits = !text || !!fitting;
      const iconFits = !iconDraw || iconAllowOverlap || index.fits(iconDraw.boxes);
      const showText = !!text && textFits && (iconFits || iconOptional || !iconDraw);
      const showIcon = !!iconDraw && iconFits && (textFits || textOptional || !text);
      if (!showText && !showIcon) continue;
      if (showText && !textIgnore) index.insert(text!.boxes);
      if (showIcon && !iconIgnore) index.insert(iconDraw!.boxes);
      placed.push({
        feature: f,
        glyphs: showText ? text!.glyphs : [],
        images: showText ? text!.images : [],
        icon: showIcon ? { image: iconDraw!.image, transform: iconDraw!.transform } : null,
      });
    }
  }
  return placed;
}

/** MapLibre's baseline adjustment for top/bottom variable anchors, in 24-px units. */
const VARIABLE_BASELINE_OFFSET = 7;

function shapeCandidates(layer: SymbolLayerSpecification, f: RenderFeature, zoom: number, sections: TextSection[], alongLine: boolean): Shaping[] {
  const base = {
    maxWidth: alongLine ? 0 : num(layer, "layout", "text-max-width", zoom, f),
    lineHeight: num(layer, "layout", "text-line-height", zoom, f),
    letterSpacing: num(layer, "layout", "text-letter-spacing", zoom, f),
    textSize: num(layer, "layout", "text-size", layoutZoom(zoom), f),
  };
  const justify = String(prop(layer, "layout", "text-justify", zoom, f));
  const offset = pair(prop(layer, "layout", "text-offset", zoom, f));
  const candidates = alongLine ? [] : variableAnchors(layer, f, zoom, offset);
  if (!candidates.length) {
    const anchor = alongLine ? "center" : String(prop(layer, "layout", "text-anchor", zoom, f));
    candidates.push({ anchor, offset, justify });
  }
  return candidates
    .map((c) => shapeText(sections, { ...base, anchor: c.anchor, justify: c.justify, offset: c.offset }))
    .filter((s): s is Shaping => s !== null);
}

/** text-variable-anchor(-offset) candidates in order, offsets in ems, as MapLibre's getTextVariableAnchorOffset. */
function variableAnchors(layer: SymbolLayerSpecification, f: RenderFeature, zoom: number, textOffset: [number, number]) {
  const justify = String(prop(layer, "layout", "text-justify", zoom, f));
  const out: { anchor: string; offset: [number, number]; justify: string }[] = [];
  const collection = layer.layout?.["text-variable-anchor-offset"] ? prop(layer, "layout", "text-variable-anchor-offset", zoom, f) : null;
  const values = (collection as { values?: unknown[] } | null)?.values;
  if (Array.isArray(values)) {
    for (let i = 0; i + 1 < values.length; i += 2) {
      const anchor = String(values[i]);
      const [x, y] = pair(values[i + 1]);
      const baseline = anchor.startsWith("top") ? -VARIABLE_BASELINE_OFFSET : anchor.startsWith("bottom") ? VARIABLE_BASELINE_OFFSET : 0;
      out.push({ anchor, offset: [x, y + baseline / ONE_EM], justify });
    }
    return out;
  }
  const anchors = prop(layer, "layout", "text-variable-anchor", zoom, f);
  if (!Array.isArray(anchors) || !layer.layout?.["text-variable-anchor"]) return out;
  const radial = layer.layout?.["text-radial-offset"] !== undefined ? num(layer, "layout", "text-radial-offset", zoom, f) : null;
  for (const a of anchors) {
    const anchor = String(a);
    const px = radial !== null ? fromRadialOffset(anchor, radial * ONE_EM) : fromTextOffset(anchor, textOffset[0] * ONE_EM, textOffset[1] * ONE_EM);
    out.push({ anchor, offset: [px[0] / ONE_EM, px[1] / ONE_EM], justify });
  }
  return out;
}

function fromRadialOffset(anchor: string, radial: number): [number, number] {
  const r = Math.max(0, radial);
  const h = r / Math.SQRT2;
  let x = 0;
  let y = 0;
  if (anchor === "top-right" || anchor === "top-left") y = h - VARIABLE_BASELINE_OFFSET;
  else if (anchor === "bottom-right" || anchor === "bottom-left") y = -h + VARIABLE_BASELINE_OFFSET;
  else if (anchor === "bottom") y = -r + VARIABLE_BASELINE_OFFSET;
  else if (anchor === "top") y = r - VARIABLE_BASELINE_OFFSET;
  if (anchor === "top-right" || anchor === "bottom-right") x = -h;
  else if (anchor === "top-left" || anchor === "bottom-left") x = h;
  else if (anchor === "left") x = r;
  else if (anchor === "right") x = -r;
  return [x, y];
}

function fromTextOffset(anchor: string, ox: number, oy: number): [number, number] {
  const ax = Math.abs(ox);
  const ay = Math.abs(oy);
  const y = anchor.startsWith("top") ? ay - VARIABLE_BASELINE_OFFSET : anchor.startsWith("bottom") ? -ay + VARIABLE_BASELINE_OFFSET : 0;
  const x = anchor.endsWith("right") ? -ax : anchor.endsWith("left") ? ax : 0;
  return [x, y];
}

function pair(v: unknown): [number, number] {
  return Array.isArray(v) ? [Number(v[0]) || 0, Number(v[1]) || 0] : [0, 0];
}

function anchorsOf(f: RenderFeature, placement: string, shaping: Shaping | null, scale: number, spacing: number, tileScale: number, maxAngle: number, width: number, height: number): Anchor[] {
  if (placement !== "point" && f.type !== 1) {
    if (!shaping) return [];
    const labelLength = (shaping.right - shaping.left) * scale;
    // As MapLibre, anchors are laid along the line cut to each tile symbols are laid out in (the view's
    // whole zoom), not the part the view cuts out, so they do not move with the view; a run from the
    // tile's edge starts half a spacing in, a label must fit on its tile's run, a tile keeps the anchors
    // inside itself (its neighbour has the others), and those whose label cannot reach the view are
    // skipped. line-center labels the whole line, as MapLibre does.
    const reach = labelLength / 2 + ONE_EM * scale * 2;
    const anchors: Anchor[] = [];
    const em = ONE_EM * scale;
    const runs = placement === "line-center" ? f.labelLines().map((line) => ({ line, continued: false, owns: (x: number, y: number) => f.ownsAnchor(x, y) })) : f.layoutLines(reach);
    for (const { line, continued, owns } of runs) {
      if (!nearView(line, reach, width, height)) continue;
      for (const a of lineAnchors(line, labelLength, spacing, placement === "line-center", { continued, tileScale, em })) {
        if (a.x < -reach || a.y < -reach || a.x > width + reach || a.y > height + reach || !owns(a.x, a.y)) continue;
        const glyphs = glyphsAlongLine(a, shaping, scale, maxAngle);
        if (glyphs) anchors.push({ kind: "line", glyphs });
      }
    }
    return anchors;
  }
  if (f.type === 1) return f.points().map(([x, y]) => ({ kind: "point", x, y }));
  if (f.type === 3) {
    return f
      .polygons()
      .map(labelPoint)
      .filter((p): p is [number, number] => p !== null)
      .map(([x, y]) => ({ kind: "point", x, y }));
  }
  // a line's point label sits on its first vertex (not where the view happens to cut it)
  return f.lineStarts().map(([x, y]) => ({ kind: "point", x, y }));
}

/** Whether the line's bounding box comes within `reach` px of the view. */
function nearView(line: number[], reach: number, width: number, height: number): boolean {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < line.length; i += 2) {
    minX = Math.min(minX, line[i]!);
    maxX = Math.max(maxX, line[i]!);
    minY = Math.min(minY, line[i + 1]!);
    maxY = Math.max(maxY, line[i + 1]!);
  }
  return maxX >= -reach && maxY >= -reach && minX <= width + reach && minY <= height + reach;
}

function layoutText(
  layer: SymbolLayerSpecification,
  f: RenderFeature,
  ctx: DrawContext,
  anchor: Anchor,
  shaping: Shaping,
  scale: number,
  sections: TextSection[],
  padding: number,
): { glyphs: PlacedGlyph[]; images: PlacedImage[]; boxes: CollisionBox[] } {
  const glyphs: PlacedGlyph[] = [];
  const images: PlacedImage[] = [];
  const boxes: CollisionBox[] = [];
  // a mark (glyph or inline image) whose pen position lands at (x, y), turned by angle
  const glyph = (i: number, x: number, y: number, angle: number): void => {
    const g = shaping.glyphs[i]!;
    const k = scale * g.scale; // glyph defs are drawn at the 24-px em, image defs at their CSS size
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const turn = { a: k * cos, b: k * sin, c: -k * sin, d: k * cos };
    if ("image" in g) {
      // its y is already its top; its left edge sits a little right of the pen, along the turned baseline
      const inset = (g.left - g.x) * scale;
      images.push({ image: g.image, transform: { ...turn, e: x + inset * cos, f: y + inset * sin } });
      return;
    }
    glyphs.push({ font: g.font, glyphIndex: g.glyphIndex, transform: { ...turn, e: x, f: y }, unitsPerPx: 1 / k, color: sections[g.section]?.color });
  };
  if (anchor.kind === "line") {
    const half = (ONE_EM * scale) / 2 + padding;
    for (const p of anchor.glyphs) {
      glyph(p.index, p.x, p.y, p.angle);
      boxes.push({ x1: p.cx - half, y1: p.cy - half, x2: p.cx + half, y2: p.cy + half });
    }
    return { glyphs, images, boxes };
  }
  const rotation = labelRotation(layer, f, ctx, "text");
  const cos = Math.cos(rotation);
  const sin = Math.sin(rotation);
  for (let i = 0; i < shaping.glyphs.length; i++) {
    const g = shaping.glyphs[i]!;
    const lx = g.x * scale;
    const ly = g.y * scale;
    glyph(i, anchor.x + lx * cos - ly * sin, anchor.y + lx * sin + ly * cos, rotation);
  }
  boxes.push(rotatedBox(anchor.x, anchor.y, shaping.left * scale, shaping.top * scale, shaping.right * scale, shaping.bottom * scale, rotation, padding));
  return { glyphs, images, boxes };
}

function layoutIcon(
  layer: SymbolLayerSpecification,
  f: RenderFeature,
  ctx: DrawContext,
  anchor: { x: number; y: number },
  image: SpriteImage,
  text: { shaping: Shaping; scale: number } | null,
): { image: SpriteImage; transform: Affine; boxes: CollisionBox[] } | null {
  const { zoom } = ctx;
  const size = num(layer, "layout", "icon-size", zoom, f);
  if (size <= 0) return null;
  const [ox, oy] = pair(prop(layer, "layout", "icon-offset", zoom, f));
  const { horizontal, vertical } = anchorAlignment(String(prop(layer, "layout", "icon-anchor", zoom, f)));
  let left = ox * size - image.width * size * horizontal;
  let top = oy * size - image.height * size * vertical;
  let right = left + image.width * size;
  let bottom = top + image.height * size;
  const fit = String(prop(layer, "layout", "icon-text-fit", zoom, f));
  if (text && fit !== "none") {
    // icon-text-fit: the icon stretched around the text (MapLibre's fitIconToText)
    const [pt, pr, pb, pl] = quad(prop(layer, "layout", "icon-text-fit-padding", zoom, f));
    const s = text.scale;
    const sh = text.shaping;
    if (fit === "width" || fit === "both") {
      left = ox + sh.left * s - pl;
      right = ox + sh.right * s + pr;
    } else {
      left = ox + ((sh.left + sh.right) * s - image.width) / 2;
      right = left + image.width;
    }
    if (fit === "height" || fit === "both") {
      top = oy + sh.top * s - pt;
      bottom = oy + sh.bottom * s + pb;
    } else {
      top = oy + ((sh.top + sh.bottom) * s - image.height) / 2;
      bottom = top + image.height;
    }
  }
  const sx = (right - left) / image.width;
  const sy = (bottom - top) / image.height;
  const rotation = labelRotation(layer, f, ctx, "icon");
  const cos = Math.cos(rotation);
  const sin = Math.sin(rotation);
  const transform = {
    a: sx * cos,
    b: sx * sin,
    c: -sy * sin,
    d: sy * cos,
    e: anchor.x + left * cos - top * sin,
    f: anchor.y + left * sin + top * cos,
  };
  const padding = Math.max(...quad(prop(layer, "layout", "icon-padding", zoom, f)));
  return { image, transform, boxes: [rotatedBox(anchor.x, anchor.y, left, top, right, bottom, rotation, padding)] };
}

/** A padding value (number, [all], [v, h], [t, h, b] or [t, r, b, l], or a style-spec Padding) as [t, r, b, l]. */
function quad(v: unknown): [number, number, number, number] {
  const values = typeof v === "number" ? [v] : Array.isArray(v) ? v : ((v as { values?: unknown[] } | null)?.values ?? [0]);
  const n = values.map((x) => Number(x) || 0);
  if (n.length >= 4) return [n[0]!, n[1]!, n[2]!, n[3]!];
  if (n.length === 3) return [n[0]!, n[1]!, n[2]!, n[1]!];
  if (n.length === 2) return [n[0]!, n[1]!, n[0]!, n[1]!];
  return [n[0] ?? 0, n[0] ?? 0, n[0] ?? 0, n[0] ?? 0];
}

/** *-rotate plus, for map-aligned point labels, the map's bearing. */
function labelRotation(layer: SymbolLayerSpecification, f: RenderFeature, ctx: DrawContext, kind: "text" | "icon"): number {
  const rotate = (num(layer, "layout", `${kind}-rotate`, ctx.zoom, f) * Math.PI) / 180;
  const alignment = prop(layer, "layout", `${kind}-rotation-alignment`, ctx.zoom, f);
  return rotate + (alignment === "map" ? ctx.cam.angle : 0);
}

function rotatedBox(x: number, y: number, x1: number, y1: number, x2: number, y2: number, angle: number, padding: number): CollisionBox {
  if (angle === 0) return { x1: x + x1 - padding, y1: y + y1 - padding, x2: x + x2 + padding, y2: y + y2 + padding };
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [px, py] of [
    [x1, y1],
    [x2, y1],
    [x1, y2],
    [x2, y2],
  ] as const) {
    xs.push(x + px * cos - py * sin);
    ys.push(y + px * sin + py * cos);
  }
  return { x1: Math.min(...xs) - padding, y1: Math.min(...ys) - padding, x2: Math.max(...xs) + padding, y2: Math.max(...ys) + padding };
}

export function drawSymbols(layer: SymbolLayerSpecification, ctx: DrawContext, placements: Placements): void {
  const placed = placements.get(layer);
  if (!placed?.length) return;
  const { zoom, svg } = ctx;
  const body = svg.body;
  for (const s of placed) {
    if (!s.icon) continue;
    const opacity = num(layer, "paint", "icon-opacity", zoom, s.feature);
    if (opacity <= 0) continue;
    const image = s.icon.image.sdf ? (ctx.sprite.get(s.icon.image.name, tintOf(prop(layer, "paint", "icon-color", zoom, s.feature))) ?? s.icon.image) : s.icon.image;
    body.push(imageUse({ image, transform: s.icon.transform }, opacity));
  }
  // Upright glyphs become glyph masks (compose.ts); turned ones (along lines, text-rotate, map-aligned
  // under a bearing) and very large ones stay SVG outlines. Either way a layer draws every halo before
  // any text.
  // turned halos by their text-halo-blur: one blur filter over each blur's halos (resvg draws a filter
  // over its whole region, once per element that names it)
  const halos = new Map<number, string[]>();
  const fills: string[] = [];
  // images inside text, drawn as they are (an sdf one too: MapLibre's text shader samples it untinted)
  const inline: string[] = [];
  const haloMasks: MaskGlyph[] = [];
  const fillMasks: MaskGlyph[] = [];
  for (const s of placed) {
    if (!s.glyphs.length && !s.images.length) continue;
    const f = s.feature;
    const opacity = num(layer, "paint", "text-opacity", zoom, f);
    if (opacity <= 0) continue;
    for (const image of s.images) inline.push(imageUse(image, opacity));
    const haloWidth = Math.min(num(layer, "paint", "text-halo-width", zoom, f), (num(layer, "layout", "text-size", zoom, f) || ONE_EM) / 4);
    const haloBlur = Math.max(0, num(layer, "paint", "text-halo-blur", zoom, f));
    const haloValue = prop(layer, "paint", "text-halo-color", zoom, f);
    const fillValue = prop(layer, "paint", "text-color", zoom, f);
    const halo = svgColor(haloValue);
    const fill = svgColor(fillValue);
    const drawHalo = haloWidth > 0 && halo.alpha > 0;
    const asMask = (g: PlacedGlyph) => isUpright(g) && maskable(g.transform.a * ONE_EM * ctx.cam.view.pixelRatio);
    const upright = s.glyphs.filter(asMask);
    const turned = upright.length === s.glyphs.length ? [] : s.glyphs.filter((g) => !asMask(g));
    const haloRgba = withOpacity(straightColor(haloValue), opacity);
    const fillRgba = withOpacity(straightColor(fillValue), opacity);
    for (const g of upright) {
      const mask = { font: g.font, glyphIndex: g.glyphIndex, size: g.transform.a * ONE_EM, x: g.transform.e, y: g.transform.f };
      if (drawHalo) haloMasks.push({ ...mask, halo: haloWidth, blur: haloBlur, color: haloRgba });
      fillMasks.push({ ...mask, halo: 0, blur: 0, color: g.color ? withOpacity(straightColor(g.color), opacity) : fillRgba });
    }
    const uses = turned.map((g) => ({ g, href: glyphDef(ctx, g) })).filter((u) => u.href);
    if (!uses.length) continue;
    if (drawHalo) {
      // to a quarter pixel, as glyph masks round it: a blur taken from each feature's properties must not
      // make one full-view filter per feature
      const blurKey = Math.round(haloBlur * 4) / 4;
      const blurHalos = halos.get(blurKey) ?? [];
      halos.set(blurKey, blurHalos);
      blurHalos.push(
        `<g fill="${halo.rgb}" stroke="${halo.rgb}" fill-opacity="${halo.alpha * opacity}" stroke-opacity="${halo.alpha * opacity}" stroke-linejoin="round">` +
          uses.map(({ g, href }) => `<use xlink:href="#${href}" stroke-width="${n(2 * haloWidth * g.unitsPerPx)}" transform="${matrix(g.transform)}"/>`).join("") +
          "</g>",
      );
    }
    const groups = new Map<string, string[]>();
    for (const { g, href } of uses) {
      const color = g.color ? svgColor(g.color) : fill;
      const key = `fill="${color.rgb}" fill-opacity="${color.alpha * opacity}"`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key)!.push(`<use xlink:href="#${href}" transform="${matrix(g.transform)}"/>`);
    }
    for (const [attrs, parts] of groups) fills.push(`<g ${attrs}>${parts.join("")}</g>`);
  }
  for (const [blur, groups] of halos) {
    // MapLibre fades a blurred halo over 2 x 1.19 x blur px about its edge: a ramp that wide, as a
    // Gaussian (line-blur's reckoning), has sigma = width / sqrt(12)
    if (blur > 0) body.push(`<g filter="url(#${blurFilter(svg, (2 * BLUR_SPREAD * blur) / Math.sqrt(12))})">${groups.join("")}</g>`);
    else body.push(...groups);
  }
  // images go over every halo and under the text; masks are drawn apart from the body, so their halos
  // need a run of their own below the images (a run costs a compose pass: only when there are images)
  if (inline.length) {
    svg.text(haloMasks);
    body.push(...inline);
  }
  body.push(...fills);
  svg.text(inline.length ? fillMasks : [...haloMasks, ...fillMasks]);
}

function imageUse(placed: PlacedImage, opacity: number): string {
  return `<use xlink:href="#${placed.image.id}" transform="${matrix(placed.transform)}"${opacity < 1 ? ` opacity="${opacity}"` : ""}/>`;
}

/** Drawn without turning (the transform only scales and moves), so a cached mask fits. */
function isUpright(g: PlacedGlyph): boolean {
  return g.transform.b === 0 && g.transform.c === 0 && g.transform.a > 0 && g.transform.a === g.transform.d;
}

function withOpacity(c: [number, number, number, number], opacity: number): [number, number, number, number] {
  return [c[0], c[1], c[2], c[3] * opacity];
}

/** opentype.js outline commands (font units, y up) as SVG path data with y pointing down. */
function outlinePathData(commands: PathCommand[], scale: number): string {
  const p = (x: number, y: number) => `${Math.round(x * scale * 100) / 100} ${Math.round(-y * scale * 100) / 100}`;
  let d = "";
  for (const c of commands) {
    if (c.type === "Z") d += "Z";
    else if (c.type === "M" || c.type === "L") d += `${c.type}${p(c.x!, c.y!)}`;
    else if (c.type === "Q") d += `Q${p(c.x1!, c.y1!)} ${p(c.x!, c.y!)}`;
    else d += `C${p(c.x1!, c.y1!)} ${p(c.x2!, c.y2!)} ${p(c.x!, c.y!)}`;
  }
  return d;
}

/** Outline path data per glyph, kept across renders (fonts are kept too; see text.ts). */
const outlines = new WeakMap<LoadedFont, Map<number, string>>();

function outlineOf(font: LoadedFont, glyphIndex: number): string {
  let byGlyph = outlines.get(font);
  if (!byGlyph) outlines.set(font, (byGlyph = new Map()));
  let d = byGlyph.get(glyphIndex);
  if (d === undefined) {
    d = outlinePathData(font.parsed.font.glyphs.get(glyphIndex).path.commands, ONE_EM / font.upm);
    byGlyph.set(glyphIndex, d);
  }
  return d;
}

/** The glyph outline as a def at the 24-px em (y down; stroking in font units is many times slower), shared by every use; null for blank glyphs. */
function glyphDef(ctx: DrawContext, g: PlacedGlyph): string | null {
  const key = `glyph:${g.font.name}:${g.glyphIndex}`;
  const id = ctx.svg.defOnce(key, (defId) => {
    const d = outlineOf(g.font, g.glyphIndex);
    return d ? `<path id="${defId}" d="${d}"/>` : "";
  });
  return ctx.svg.isEmptyDef(id) ? null : id;
}

/** icon-color as straight RGBA for recolouring SDF icons. */
function tintOf(value: unknown): [number, number, number, number] {
  const c = value instanceof Color ? value : Color.black;
  if (c.a <= 0) return [0, 0, 0, 0];
  return [Math.round((c.r / c.a) * 255), Math.round((c.g / c.a) * 255), Math.round((c.b / c.a) * 255), c.a];
}
