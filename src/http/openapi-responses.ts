// OpenAPI `responses` for routes whose answers are not one JSON schema per status (tiles, glyphs,
// sprite files): `detail.responses` replaces what Elysia derives from `response`, and documents
// without adding response validation to a hot path.
import type { TSchema } from "elysia";

/** a JSON schema; [content type(s), description] for bytes; a bare description for an answer without a body */
export type DocumentedAnswer = TSchema | [contentType: string | string[], description: string] | string;

const BYTES = { schema: { type: "string", format: "binary" } };

// Typed loosely as what Elysia's `detail.responses` accepts (OpenAPI ResponsesObject).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function openApiResponses(map: Record<number, DocumentedAnswer>): Record<string, any> {
  return Object.fromEntries(
    Object.entries(map).map(([status, answer]) => {
      if (typeof answer === "string") return [status, { description: answer }];
      if (Array.isArray(answer)) {
        const types = typeof answer[0] === "string" ? [answer[0]] : answer[0];
        return [status, { description: answer[1], content: Object.fromEntries(types.map((type) => [type, BYTES])) }];
      }
      return [status, { description: (answer as { description?: string }).description ?? (Number(status) < 300 ? "OK" : "Error"), content: { "application/json": { schema: answer } } }];
    }),
  );
}
