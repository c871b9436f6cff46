// Instruction text for OSRM steps, which carry maneuvers but no words: osrm-text-instructions is the
// OSRM project's own generator (the one OSRM front ends use), with about 30 languages bundled.
import osrmTextInstructions from "osrm-text-instructions";
import languages from "osrm-text-instructions/languages";

const compiler = osrmTextInstructions("v5");
const BY_LOWER = new Map(languages.supportedCodes.map((code) => [code.toLowerCase(), code]));

/** The closest bundled language for a tag: exact, then its primary subtag, else English. */
export function instructionLanguage(tag: string): string {
  const lower = tag.toLowerCase();
  return BY_LOWER.get(lower) ?? BY_LOWER.get(lower.split("-")[0]!) ?? "en";
}

export interface OsrmStepLike {
  maneuver: { type: string; modifier?: string; bearing_after?: number; exit?: number };
  name?: string;
  ref?: string;
  mode?: string;
  destinations?: string;
  rotary_name?: string;
  intersections?: unknown[];
}

/** The sentence for one step; "" for a step the generator cannot phrase (an unusual maneuver type). */
export function instructionFor(language: string, step: OsrmStepLike, legIndex: number, legCount: number): string {
  try {
    return compiler.compile(language, step, { legIndex, legCount });
  } catch {
    return "";
  }
}
