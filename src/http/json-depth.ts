// A limit on how deeply a JSON body may nest, checked once it is parsed and before it is validated:
// validation, error messages and the database's JSON all walk a body recursively, and a 10 KB body of
// brackets 5,000 deep overflowed the stack there (a 500). Real bodies (styles with their expressions
// included) stay far below the limit.
import { BadRequest } from "../errors";

export const MAX_JSON_DEPTH = 256;

/** Throws a 400 when `body` (a parsed JSON value) nests deeper than `max` arrays and objects. */
export function checkJsonDepth(body: unknown, max = MAX_JSON_DEPTH): void {
  if (body === null || typeof body !== "object") return;
  // Iterative, so that the check itself cannot overflow.
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (depth > max) throw new BadRequest(`The JSON body nests deeper than ${max} levels of arrays and objects`);
    for (const child of Array.isArray(value) ? value : Object.values(value as object)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
}
