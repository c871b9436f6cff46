// Elysia strips unknown body fields before validation; for security-relevant bodies that would turn a
// typo (`allowed_origin`) into a silently unrestricted key. This transform hook refuses them instead.
import { BadRequest } from "../errors";
import { jsonTypeRefusal } from "./request-rules";

export function rejectUnknownFields(schema: { properties: Record<string, unknown> }) {
  const known = new Set(Object.keys(schema.properties));
  return ({ body, request }: { body: unknown; request: Request }) => {
    // A text body stays a string and fails validation (415 for its type, request-rules.ts); a form
    // comes parsed into fields, none of them ours, and is refused for its type here, as it was for
    // its fields before (validation would strip them and let an empty body through).
    if (!body || typeof body !== "object") return;
    const refused = jsonTypeRefusal(request);
    if (refused) throw refused;
    // TypeBox lets an array through an object schema whose fields are all optional (PATCH `[]` was an
    // empty edit), and an array where fields are required gets a message about a missing field.
    if (Array.isArray(body)) throw new BadRequest("The body must be a JSON object, not an array");
    const unknown = Object.keys(body).filter((k) => !known.has(k));
    if (unknown.length)
      throw new BadRequest(`Unknown body field(s): ${unknown.slice(0, 5).map((k) => `'${k.slice(0, 40)}'`).join(", ")}; expected ${[...known].join(", ")}`);
  };
}
