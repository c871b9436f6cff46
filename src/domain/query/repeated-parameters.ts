// One rule for every service route's query string (CONTRACT.md's 400 BAD_REQUEST naming the parameter):
// a parameter given more than once is refused rather than guessed at. Taking the first or the last of
// `?samples=5&samples=500` would answer a question the caller may not have meant, and different routes
// guessing differently (as they once did) makes the same URL mean different things. None of the service
// routes takes a parameter more than once: lists are one value with separators (`;` or `,`).
import { BadRequest } from "../../errors";

/** Throws a 400 naming the first parameter that appears more than once; `prefix` qualifies the name (batch jobs). */
export function refuseRepeatedParameters(names: Iterable<string>, prefix = ""): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new BadRequest(`${prefix}${name} is given more than once`, { parameter: `${prefix}${name}` });
    seen.add(name);
  }
}

/** The rule in words, for the OpenAPI description of every route it applies to. */
export const REPEATED_PARAMETER_RULE =
  "A query parameter given more than once (any name, one this route does not take included) is a 400 BAD_REQUEST naming it in details.parameter, not the first or last value taken; a list goes in one value, with the separators described.";
