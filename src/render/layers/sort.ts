// *-sort-key: features with lower keys draw first (stable, so equal keys keep tile order).
import type { LayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { RenderFeature } from "../features";
import { prop } from "../style-eval";

export function sortByKey<F extends RenderFeature>(layer: LayerSpecification, keyName: string, features: F[], zoom: number): F[] {
  if ((layer.layout as Record<string, unknown> | undefined)?.[keyName] === undefined) return features;
  const keyed = features.map((f, i) => ({ f, i, k: Number(prop(layer, "layout", keyName, zoom, f)) || 0 }));
  keyed.sort((a, b) => a.k - b.k || a.i - b.i);
  return keyed.map((e) => e.f);
}
