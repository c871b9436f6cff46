// Which parameters each geocoding form takes. A parameter that would have changed the answer elsewhere
// (another form's filter, or Pelias' own name for one of ours) is refused with a 400 saying what to
// send instead: ignored, it would quietly give unfiltered results. A name no form knows (a cache
// buster, say) is ignored, as web APIs do.
import { BadRequest } from "../../errors";
import { refuseRepeatedParameters } from "../query/repeated-parameters";

export type GeocodingForm = "forward" | "reverse" | "autocomplete";

const TAKES: Record<GeocodingForm, readonly string[]> = {
  forward: ["q", "limit", "language", "bbox", "country"],
  reverse: ["lon", "lat", "limit", "language"],
  autocomplete: ["text", "limit", "language", "focus.lon", "focus.lat"],
};

/** Pelias' names (and common spellings) for our parameters. */
const OUR_NAME_FOR: Record<string, string> = {
  size: "limit",
  lang: "language",
  "boundary.country": "country",
  "boundary.rect.min_lon": "bbox",
  "boundary.rect.min_lat": "bbox",
  "boundary.rect.max_lon": "bbox",
  "boundary.rect.max_lat": "bbox",
  "point.lon": "lon",
  "point.lat": "lat",
  "focus.point.lon": "focus.lon",
  "focus.point.lat": "focus.lat",
};

const KNOWN = new Set([...Object.values(TAKES).flat(), ...Object.keys(OUR_NAME_FOR)]);

/** Refuses repeated parameters and ones this form does not take but a caller would expect to work. */
export function checkParameterNames(form: GeocodingForm, names: Iterable<string>, prefix = ""): void {
  const takes = TAKES[form];
  const all = [...names];
  refuseRepeatedParameters(all, prefix);
  for (const name of all) {
    if (takes.includes(name) || !KNOWN.has(name)) continue;
    const ours = OUR_NAME_FOR[name];
    const instead = ours && takes.includes(ours) ? `; use ${prefix}${ours}` : "";
    throw new BadRequest(`${form} does not take ${prefix}${name}${instead} (it takes ${takes.join(", ")})`, { parameter: `${prefix}${name}` });
  }
}
