// What every input reader yields: a feature as found in the file, and where it was found so a
// message can point a person at it ("line 12", "feature 5", "record 7 of roads.shp").
export interface RawFeature {
  geometry: unknown;
  properties: Record<string, unknown> | null;
  where: string;
  /** the feature's id as the file gives it (GeoJSON `id`); kept in tiles when it is an unsigned integer */
  id?: unknown;
}

export interface ReadProgress {
  /** bytes of the input consumed so far, against `total` */
  bytes: number;
  total: number;
  /** notes about the whole file (not one feature) a reader wants shown */
  warnings?: string[];
}

export type FeatureReader = (path: string, label: string, progress: ReadProgress) => AsyncGenerator<RawFeature> | Generator<RawFeature>;
