// What the routing service asks of a backend, and the one answer shape both adapters produce
// (close to OSRM's and Mapbox Directions' JSON, which MapLibre directions plugins already read).
import type { RoutingProfile } from "../../config";

export type { RoutingProfile };

/** [lon, lat] in decimal degrees */
export type Position = [number, number];

export const EXCLUSIONS = ["tolls", "motorways", "ferries"] as const;
export type Exclusion = (typeof EXCLUSIONS)[number];

export interface RouteQuery {
  profile: RoutingProfile;
  waypoints: Position[];
  /** alternative routes wanted besides the best one, 0 to 3 */
  alternatives: number;
  steps: boolean;
  geometries: "geojson" | "polyline" | "polyline6";
  overview: "full" | "simplified" | "false";
  /** a language tag; engines fall back to English for languages they lack */
  language: string;
  exclude: Exclusion[];
  /**
   * per waypoint, how far from the input (metres) the engine may look for a road: a number, "unlimited",
   * or null for the engine's default; null when the client sent none
   */
  radiuses: (number | "unlimited" | null)[] | null;
  /** per waypoint, the direction of travel there: [degrees clockwise from north, allowed deviation], or null for any; null when none sent */
  bearings: ([number, number] | null)[] | null;
  /**
   * indices of the waypoints that end legs (Mapbox's and OSRM's `waypoints`): the others are passed
   * through without a leg break; null when the client sent none (every waypoint ends a leg)
   */
  legEnds: number[] | null;
  /** true: no U-turn at intermediate waypoints; false: U-turns allowed there; null: the engine's default */
  continueStraight: boolean | null;
  /** per waypoint, `curb` (arrive and leave with the point on the driving side) or null for any side; null when none sent */
  approaches: ("curb" | null)[] | null;
  /** per-segment leg annotations wanted, in ANNOTATIONS' order; [] for none */
  annotations: Annotation[];
  /** names for the waypoints that end legs (all, or those `legEnds` lists), in order; null entries keep the snapped road's name; null when none sent */
  waypointNames: (string | null)[] | null;
}

export const ANNOTATIONS = ["distance", "duration", "speed"] as const;
export type Annotation = (typeof ANNOTATIONS)[number];

export const MATRIX_ANNOTATIONS = ["duration", "distance"] as const;
export type MatrixAnnotation = (typeof MATRIX_ANNOTATIONS)[number];

export interface MatrixQuery {
  profile: RoutingProfile;
  points: Position[];
  /** indices into points */
  sources: number[];
  destinations: number[];
  /** which tables to answer, in MATRIX_ANNOTATIONS' order (both when the client sent none) */
  annotations: MatrixAnnotation[];
  /** per point (not per source or destination): "curb" (leave or arrive with it on the driving side) or null for any side; null when none sent */
  approaches: ("curb" | null)[] | null;
}

export interface Maneuver {
  /** OSRM's vocabulary: depart, arrive, turn, new name, continue, on ramp, off ramp, fork, end of road, use lane, merge, roundabout, rotary, roundabout turn, exit roundabout, exit rotary, notification */
  type: string;
  /** uturn, sharp right, right, slight right, straight, slight left, left, sharp left */
  modifier?: string;
  location: Position;
  bearing_before: number;
  bearing_after: number;
  instruction: string;
  /** roundabout exit number */
  exit?: number;
}

export interface Step {
  /** metres */
  distance: number;
  /** seconds */
  duration: number;
  name: string;
  mode: string;
  maneuver: Maneuver;
  geometry: Position[];
}

export interface Leg {
  distance: number;
  duration: number;
  summary: string;
  steps: Step[];
  /** per segment of the leg's full geometry, the annotations asked for; absent when none were */
  annotation?: Partial<Record<Annotation, number[]>>;
}

export interface Route {
  distance: number;
  duration: number;
  /** the line as `overview` asked (full or simplified); null for overview=false */
  geometry: Position[] | null;
  legs: Leg[];
}

export interface Waypoint {
  /** where the engine snapped the input to its network */
  location: Position;
  /** name of the road snapped to, "" when unnamed; absent when the engine does not say */
  name?: string;
  /** metres from the input to `location`; absent when the engine does not say */
  distance?: number;
}

export interface RouteAnswer {
  routes: Route[];
  waypoints: Waypoint[];
}

export interface MatrixAnswer {
  /** seconds, [source][destination], null where no route exists; absent when not asked for */
  durations?: (number | null)[][];
  /** metres, like durations */
  distances?: (number | null)[][];
  sources: Waypoint[];
  destinations: Waypoint[];
}

export interface Router {
  engine: "osrm" | "valhalla";
  route(q: RouteQuery): Promise<RouteAnswer>;
  matrix(q: MatrixQuery): Promise<MatrixAnswer>;
}
