// What the geocoding module asks of a backend, and the normalized answer (CONTRACT.md "Geocoding").

export type BBox = [minLon: number, minLat: number, maxLon: number, maxLat: number];

export interface ForwardQuery {
  q: string;
  limit: number;
  language: string;
  bbox?: BBox;
  /** upper-case ISO 3166-1 alpha-2 or alpha-3 codes */
  country?: string[];
}

export interface ReverseQuery {
  lon: number;
  lat: number;
  limit: number;
  language: string;
}

export interface AutocompleteQuery {
  text: string;
  limit: number;
  language: string;
  focus?: { lon: number; lat: number };
}

export interface PlaceProperties {
  gid?: string;
  layer?: string;
  source?: string;
  name?: string;
  label?: string;
  confidence?: number;
  /** kilometres from the query point, when the backend knows it */
  distance?: number;
  housenumber?: string;
  street?: string;
  postalcode?: string;
  locality?: string;
  region?: string;
  /** the region's short code (IL for Illinois) */
  region_a?: string;
  country?: string;
  /** ISO 3166-1 alpha-2 */
  country_code?: string;
  /** ISO 3166-1 alpha-3 */
  country_a?: string;
}

export interface Place {
  type: "Feature";
  geometry: { type: "Point"; coordinates: [number, number] };
  bbox?: BBox;
  properties: PlaceProperties;
}

export interface GeocodeAnswer {
  features: Place[];
  warnings: string[];
  /** data sources the features came from (openstreetmap, openaddresses ...), for attribution */
  sources: string[];
  /** the whole attribution line, for backends that know their data's licence (the embedded gazetteer) */
  attribution?: string;
}

export interface Geocoder {
  forward(q: ForwardQuery): Promise<GeocodeAnswer>;
  reverse(q: ReverseQuery): Promise<GeocodeAnswer>;
  autocomplete(q: AutocompleteQuery): Promise<GeocodeAnswer>;
  /** called whenever the backend's data changes (an import), so cached answers can be dropped */
  onChange?(listener: () => void): void;
}
