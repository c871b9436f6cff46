// Compiled style properties and filters, evaluated with @maplibre/maplibre-gl-style-spec itself so
// zoom and data expressions, legacy functions and filters behave exactly as in MapLibre GL JS.
import {
  Color,
  expression,
  featureFilter,
  latest,
  type LayerSpecification,
  type StylePropertyExpression,
} from "@maplibre/maplibre-gl-style-spec";
import { Lru } from "../lru";

/** What expressions see of a feature (the shape MapLibre hands them). */
export interface EvalFeature {
  type: 1 | 2 | 3;
  id?: number | string;
  properties: Record<string, unknown>;
}

type Evaluator = (zoom: number, feature?: EvalFeature, images?: string[]) => unknown;

interface CompiledProperty {
  evaluate: Evaluator;
  /** the value depends on the zoom at most, never on a feature */
  featureConstant: boolean;
}

/**
 * Compiled expressions and filters shared across renders, keyed by their JSON: render workers get a fresh
 * copy of the style for every job, and compiling a 100-layer style costs tens of milliseconds.
 * Bounded by the size of the keys (a stand-in for the compiled objects, which are of the same order).
 */
const COMPILED_CACHE_BYTES = 8 * 1024 * 1024;
const compiledExpressions = new Lru<StylePropertyExpression>({ maxBytes: COMPILED_CACHE_BYTES });
const compiledFilters = new Lru<ReturnType<typeof featureFilter>>({ maxBytes: COMPILED_CACHE_BYTES });

const compiled = new WeakMap<LayerSpecification, Map<string, CompiledProperty>>();
const filters = new WeakMap<LayerSpecification, (zoom: number, f: EvalFeature) => boolean>();

function specFor(layer: LayerSpecification, kind: "paint" | "layout", name: string) {
  const group = (latest as unknown as Record<string, Record<string, unknown>>)[`${kind}_${layer.type}`];
  return group?.[name] as Parameters<typeof expression.normalizePropertyExpression>[2] | undefined;
}

/**
 * The layer's property as the style spec compiles it (cached), for the few layers that look inside it
 * (color-relief reads the stops of its colour ramp); undefined for a property the layer type lacks.
 */
export function propertyExpression(layer: LayerSpecification, kind: "paint" | "layout", name: string): StylePropertyExpression | undefined {
  const spec = specFor(layer, kind, name);
  if (!spec) return undefined;
  const raw = (layer as unknown as Record<string, Record<string, unknown> | undefined>)[kind]?.[name];
  const key = `${layer.type}|${kind}|${name}|${JSON.stringify(raw ?? null)}`;
  let expr = compiledExpressions.get(key);
  if (!expr) {
    try {
      expr = expression.normalizePropertyExpression((raw ?? spec.default) as never, `${layer.id}.${name}`, spec);
    } catch {
      // an invalid property behaves as MapLibre's default instead of failing the whole render
      expr = expression.normalizePropertyExpression(spec.default as never, `${layer.id}.${name}`, spec);
    }
    compiledExpressions.set(key, expr, key.length);
  }
  return expr;
}

function compile(layer: LayerSpecification, kind: "paint" | "layout", name: string): CompiledProperty {
  const spec = specFor(layer, kind, name);
  const expr = propertyExpression(layer, kind, name);
  if (!spec || !expr) return { evaluate: () => undefined, featureConstant: true };
  const evaluate: Evaluator = (zoom, feature, images) => {
    try {
      return expr.evaluate({ zoom }, feature as never, {}, undefined, (images ?? ANY_IMAGE) as never);
    } catch {
      return spec.default;
    }
  };
  if (expr.kind !== "constant" && expr.kind !== "camera") return { evaluate, featureConstant: false };
  // the same for every feature: evaluated once per zoom instead of once per feature
  let lastZoom = NaN;
  let lastValue: unknown;
  const once: Evaluator = (zoom, feature, images) => {
    if (images) return evaluate(zoom, feature, images);
    if (zoom !== lastZoom) {
      lastValue = evaluate(zoom);
      lastZoom = zoom;
    }
    return lastValue;
  };
  return { evaluate: once, featureConstant: true };
}

// without a list, image expressions treat every image as present; the sprite module checks afterwards
const ANY_IMAGE = new Proxy([], { get: (t, k) => (k === "indexOf" ? () => 0 : k === "includes" ? () => true : Reflect.get(t, k)) });

/** Evaluates a paint or layout property of a layer (looked up once per layer object, compiled once per value). */
export function prop(
  layer: LayerSpecification,
  kind: "paint" | "layout",
  name: string,
  zoom: number,
  feature?: EvalFeature,
  images?: string[],
): unknown {
  return compiledProperty(layer, kind, name).evaluate(zoom, feature, images);
}

/** Whether a property is the same for every feature of the layer (constant, or a function of zoom only). */
export function featureConstant(layer: LayerSpecification, kind: "paint" | "layout", name: string): boolean {
  return compiledProperty(layer, kind, name).featureConstant;
}

function compiledProperty(layer: LayerSpecification, kind: "paint" | "layout", name: string): CompiledProperty {
  let byName = compiled.get(layer);
  if (!byName) compiled.set(layer, (byName = new Map()));
  const key = `${kind}:${name}`;
  let property = byName.get(key);
  if (!property) byName.set(key, (property = compile(layer, kind, name)));
  return property;
}

export function num(layer: LayerSpecification, kind: "paint" | "layout", name: string, zoom: number, feature?: EvalFeature): number {
  const v = prop(layer, kind, name, zoom, feature);
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export function passesFilter(layer: LayerSpecification, zoom: number, feature: EvalFeature): boolean {
  let fn = filters.get(layer);
  if (!fn) {
    const raw = (layer as { filter?: never }).filter;
    const key = JSON.stringify(raw ?? null);
    let f = compiledFilters.get(key);
    if (!f) {
      try {
        f = featureFilter(raw, `${layer.id}.filter`);
      } catch {
        f = featureFilter(["literal", false] as never, `${layer.id}.filter`);
      }
      compiledFilters.set(key, f, key.length);
    }
    const compiledFilter = f;
    fn = (z, feat) => {
      try {
        return compiledFilter.filter({ zoom: z }, feat as never);
      } catch {
        return false;
      }
    };
    filters.set(layer, fn);
  }
  return fn(zoom, feature);
}

/** A colour as SVG wants it: opaque rgb plus a separate opacity (Color is premultiplied). */
export function svgColor(value: unknown): { rgb: string; alpha: number } {
  const [r, g, b, alpha] = straightColor(value);
  if (alpha <= 0) return { rgb: "#000", alpha: 0 };
  return { rgb: `rgb(${r},${g},${b})`, alpha };
}

/** A style colour as straight-alpha [r, g, b] in 0-255 and alpha in 0-1 (transparent black when not a colour). */
export function straightColor(value: unknown): [number, number, number, number] {
  const c = value instanceof Color ? value : Color.parse(typeof value === "string" ? value : undefined);
  if (!c || c.a <= 0) return [0, 0, 0, 0];
  const ch = (v: number) => Math.max(0, Math.min(255, Math.round((v / c.a) * 255)));
  return [ch(c.r), ch(c.g), ch(c.b), c.a];
}

/** Whether the layer draws at this zoom (visibility and min/maxzoom, as MapLibre's isHidden). */
export function layerVisible(layer: LayerSpecification, zoom: number): boolean {
  if ((layer.layout as { visibility?: string } | undefined)?.visibility === "none") return false;
  if (layer.minzoom !== undefined && zoom < layer.minzoom) return false;
  if (layer.maxzoom !== undefined && zoom >= layer.maxzoom) return false;
  return true;
}
