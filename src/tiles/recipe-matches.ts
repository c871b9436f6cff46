// A recipe names files (`layers`) and attributes (`include`, `exclude`, `types`, `rank`) that only the
// data can confirm, and a misspelt one silently does nothing: `include=nam` keeps no attribute at all,
// `layers["citiez.geojson"]` changes no layer. These find the names that matched nothing, for the
// version's warnings, with a few of the names that do exist.
import { layerKeys, type LayerRecipe, type Recipe } from "./recipe";

/** How many existing names a warning shows. */
const SHOWN = 8;

const ATTRIBUTE_SETTINGS = ["include", "exclude", "types", "rank"] as const;
type AttributeSetting = (typeof ATTRIBUTE_SETTINGS)[number];

function namesOf(r: LayerRecipe, setting: AttributeSetting): string[] {
  if (setting === "types") return r.types ? Object.keys(r.types) : [];
  if (setting === "rank") return r.rank !== undefined ? [r.rank] : [];
  return r[setting] ?? [];
}

const listed = (names: Iterable<string>) => {
  const all = [...names];
  return all.length ? `${all.slice(0, SHOWN).join(", ")}${all.length > SHOWN ? ", ..." : ""}` : "none";
};

/** Which of the attribute names a layer's settings give some feature of the layer has, as it is read. */
export class AttributeNames {
  private readonly missing: Set<string>;
  /** attribute names met, up to SHOWN, for the warning */
  readonly met = new Set<string>();

  constructor(readonly settings: LayerRecipe) {
    this.missing = new Set(ATTRIBUTE_SETTINGS.flatMap((s) => namesOf(settings, s)));
  }

  /** Notes one feature's attributes as found in the file; costs nothing once every name has been met. */
  see(properties: Record<string, unknown> | null): void {
    if (!this.missing.size || !properties) return;
    for (const name of this.missing) if (Object.hasOwn(properties, name)) this.missing.delete(name);
    if (this.met.size < SHOWN)
      for (const k in properties) {
        this.met.add(k);
        if (this.met.size >= SHOWN) break;
      }
  }

  has(name: string): boolean {
    return !this.missing.has(name);
  }
}

export interface CheckedLayer {
  /** the vector layer's name */
  name: string;
  /** the `layers` entry it took settings from, if any */
  key?: string;
  attributes: AttributeNames;
}

/**
 * Attribute names no feature has. A name under a `layers` entry is checked against that layer; one of
 * the recipe's own settings against every layer that uses it, and reported only when none has it.
 */
export function unmatchedAttributes(recipe: Recipe, layers: CheckedLayer[]): string[] {
  const warnings: string[] = [];
  for (const setting of ATTRIBUTE_SETTINGS) {
    const inheriting: CheckedLayer[] = [];
    for (const l of layers) {
      const entry = l.key === undefined ? undefined : recipe.layers?.[l.key];
      if (entry === undefined || entry[setting] === undefined) {
        inheriting.push(l);
        continue;
      }
      const missing = namesOf(entry, setting).filter((n) => !l.attributes.has(n));
      if (missing.length)
        warnings.push(`recipe layers[${JSON.stringify(l.key)}].${setting} names ${missing.map((n) => `'${n}'`).join(", ")}, which no feature of layer '${l.name}' has; its attributes: ${listed(l.attributes.met)}`);
    }
    const missing = inheriting.length ? namesOf(recipe, setting).filter((n) => inheriting.every((l) => !l.attributes.has(n))) : [];
    if (missing.length)
      warnings.push(`recipe ${setting} names ${missing.map((n) => `'${n}'`).join(", ")}, which no feature has; the attributes: ${listed(new Set(inheriting.flatMap((l) => [...l.attributes.met])))}`);
  }
  return warnings;
}

/**
 * `layers` entries that pick no input. Each input comes with the names layerRecipe looks it up by (a zip
 * entry's path, the file name) and the one to show for it.
 */
export function unmatchedLayerKeys(recipe: Recipe, inputs: { names: string[]; shown: string }[]): string[] {
  const known = new Set(inputs.flatMap((i) => layerKeys(i.names)));
  const unmatched = Object.keys(recipe.layers ?? {}).filter((k) => !known.has(k));
  if (!unmatched.length) return [];
  return [`recipe layers names ${unmatched.map((k) => JSON.stringify(k)).join(", ")}, which ${unmatched.length === 1 ? "matches" : "match"} no file; the files: ${listed(inputs.map((i) => i.shown))}`];
}
