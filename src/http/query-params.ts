// A request's query string read for the service routes, under the domain's one rule for repeated
// parameters (src/domain/query/repeated-parameters.ts).
import { refuseRepeatedParameters } from "../domain/query/repeated-parameters";

export { REPEATED_PARAMETER_RULE } from "../domain/query/repeated-parameters";

/** The query string of a request, raw (without the `?`); "" when it has none. */
export function rawQueryOf(request: Request): string {
  const url = request.url;
  const q = url.indexOf("?");
  return q < 0 ? "" : url.slice(q + 1);
}

/** The request's query parameters, each given once (a repeated one is a 400 naming it). */
export function singleQueryOf(request: Request): URLSearchParams {
  const params = new URLSearchParams(rawQueryOf(request));
  refuseRepeatedParameters(params.keys());
  return params;
}

/** As singleQueryOf, as a plain record for the domain's validators. */
export function singleQueryRecordOf(request: Request): Record<string, string> {
  return Object.fromEntries(singleQueryOf(request));
}
