// Sends a read/ answer through Elysia's fast path: raw bytes or a string with headers on `set` (a
// returned Response would be re-wrapped around its body stream to merge the request-id and CORS headers).
import type { ReadAnswer } from "../../read/answer";

type Set = { headers: Record<string, unknown>; status?: unknown };

export function sendAnswer(set: Set, a: ReadAnswer) {
  Object.assign(set.headers, a.headers);
  set.status = a.status;
  return a.body;
}
